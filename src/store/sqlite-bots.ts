/**
 * Many bots on SQLite (issue 39): a file per bot, `<dataDir>/bots/<name>.db`, each opened as a bot's
 * database is today (`openDatabase`, `openStore`): every statement as it is, nothing shared between files.
 * Opening one is a file open and its pragmas (no thread of its own: the writer thread is the runtime's
 * choice per bot), so a deployment may open a bot's file when it is needed and close it when idle.
 */
import { join } from 'node:path';
import { BotflowError } from '../errors/index.ts';

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** `name` when it can name a bot's file; a clear error otherwise. */
export function checkSqliteBotName(name: string): string {
  if (!NAME.test(name))
    throw new BotflowError(
      'BOTFLOW_BOTS_CATALOG',
      `"${name}" cannot be a bot's name: 1 to 63 lowercase letters, digits and underscores, not starting with a digit`,
    );
  return name;
}

/** The database file of the bot `botName` in a deployment's data folder: `<dataDir>/bots/<name>.db`. */
export function sqliteBotPath(dataDir: string, botName: string): string {
  return join(dataDir, 'bots', `${checkSqliteBotName(botName)}.db`);
}
