/**
 * `botflow bots list|add|remove|pause|resume`: the bots a deployment serves, changed while it runs (it
 * polls the catalog and applies changes without a restart; docs/bots.md). `add` checks the token with
 * `GET /me` first and stores the bot's numeric id and username; the token itself is never stored, printed
 * or put in an error: the catalog keeps where to read it (`--token-file` or `--token-env`).
 */
import { parseArgs } from 'node:util';
import { BotApi } from '../client/client.ts';
import { openBotsCatalog } from '../runtime/bots-catalog.ts';
import { type Config, ConfigError, loadConfig } from '../runtime/config.ts';
import { BOT_NAME, botAlias, readSecretSource } from '../runtime/config-bots.ts';
import { selfCheck } from '../runtime/self-check.ts';
import type { BotRecord, BotsCatalog } from '../store/ports/bots-catalog.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import type { Command } from './command.ts';

const HELP = `usage: botflow bots list [--json]
       botflow bots add <name> --token-file <path> | --token-env <VAR> [--alias <alias>] [--json]
       botflow bots remove <name>
       botflow bots pause <name>
       botflow bots resume <name>
options: --config <file>, --db <file> | --database-url <postgres://…> (where the catalog is)

The bots a deployment serves (docs/bots.md). A running \`botflow run\` applies changes within 2 s, without a
restart. add checks the token with GET /me and stores the bot's id and username (never the token: where to
read it). remove stops serving the bot and keeps its data (its file or schema).`;

/** What the command reads and writes; tests replace these. */
export interface BotsEnvironment {
  env: NodeJS.ProcessEnv;
  cwd: string;
  print(line: string): void;
  error(line: string): void;
  /** The deployment's catalog, in its database. */
  openCatalog(config: Config): Promise<BotsCatalog>;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      'token-file': { type: 'string' },
      'token-env': { type: 'string' },
      alias: { type: 'string' },
      json: { type: 'boolean' },
      config: { type: 'string' },
      db: { type: 'string' },
      'database-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

type Values = ReturnType<typeof parse>['values'];

function shown(record: BotRecord): string {
  const who = record.username ? `@${record.username}` : record.botId !== undefined ? `#${record.botId}` : '';
  const state =
    record.removedAt !== undefined
      ? 'removed'
      : record.paused
        ? `paused${record.pausedReason ? ` (${record.pausedReason})` : ''}`
        : 'serving';
  return `${record.name.padEnd(16)} ${who.padEnd(20)} ${state}`;
}

/** `add`: the token checked with GET /me, then the record. */
async function add(
  name: string,
  values: Values,
  config: Config,
  catalog: BotsCatalog,
  environment: BotsEnvironment,
): Promise<number> {
  const source =
    values['token-file'] !== undefined
      ? { file: values['token-file'] }
      : values['token-env'] !== undefined
        ? { env: values['token-env'] }
        : undefined;
  if (!source) {
    environment.error(
      'botflow bots add: say where its token is: --token-file <path> or --token-env <VAR> (never the token itself)',
    );
    return 2;
  }
  if (source.file !== undefined) source.file = new URL(source.file, `file://${environment.cwd}/`).pathname;
  let token: string;
  try {
    token = readSecretSource(source, `bot ${name}'s token`, environment.env).reveal();
  } catch (error) {
    environment.error(`botflow bots add: ${(error as Error).message}`);
    return 2;
  }
  const baseUrl = config.baseUrl ?? 'https://platform-api2.max.ru';
  const api = new BotApi({ token, baseUrl, caFiles: config.caFiles });
  const check = await selfCheck(api, { baseUrl, caFiles: config.caFiles }).finally(() => api.close());
  if (!check.ok) {
    environment.error(`botflow bots add: ${name}: ${check.message}`);
    return 1;
  }
  const existing = await catalog.get(name);
  const record: BotRecord = {
    name,
    alias: values.alias ?? existing?.alias ?? botAlias(config, { name }),
    botId: check.bot.id,
    ...(check.bot.username ? { username: check.bot.username } : {}),
    ...(source.file !== undefined ? { tokenFile: source.file } : { tokenEnv: source.env! }),
    paused: false,
    addedAt: wallNow(),
  };
  await catalog.add(record);
  environment.print(values.json ? JSON.stringify(record) : `added ${shown(record)}`);
  return 0;
}

/** Runs `botflow bots …` with `args`; resolves with the exit code. */
export async function runBots(args: string[], environment: BotsEnvironment): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parse(args));
  } catch (error) {
    environment.error(`botflow bots: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  const [action, name] = positionals;
  if (values.help || !action) {
    (values.help ? environment.print : environment.error)(HELP);
    return values.help ? 0 : 2;
  }
  if (action !== 'list' && (!name || !BOT_NAME.test(name))) {
    environment.error(`botflow bots ${action}: give the bot's name (1 to 32 of a-z 0-9 _ -)`);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig({
      argv: [
        ...(values.config ? ['--config', values.config] : []),
        ...(values.db ? ['--db', values.db] : []),
        ...(values['database-url'] ? ['--database-url', values['database-url']] : []),
      ],
      env: environment.env,
      cwd: environment.cwd,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    environment.error(`botflow bots: ${error.message}`);
    return 2;
  }
  let catalog: BotsCatalog;
  try {
    catalog = await environment.openCatalog(config);
  } catch (error) {
    environment.error(`botflow bots: ${(error as Error).message}`);
    return 2;
  }
  try {
    if (action === 'list') {
      const records = await catalog.list();
      environment.print(values.json ? JSON.stringify(records) : records.map(shown).join('\n') || '(no bots)');
      return 0;
    }
    if (action === 'add') return await add(name!, values, config, catalog, environment);
    if (!(await catalog.get(name!))) {
      environment.error(`botflow bots ${action}: no bot named ${name} (botflow bots list shows them)`);
      return 1;
    }
    if (action === 'remove') await catalog.remove(name!);
    else if (action === 'pause')
      await catalog.update(name!, { paused: true, pausedReason: 'paused with botflow bots pause' });
    else if (action === 'resume') await catalog.update(name!, { paused: false, pausedReason: undefined });
    else {
      environment.error(`botflow bots: unknown action ${action}: list, add, remove, pause or resume`);
      return 2;
    }
    environment.print(
      `${action === 'remove' ? 'removed' : action === 'pause' ? 'paused' : 'resumed'} ${name}`,
    );
    return 0;
  } finally {
    await catalog.close();
  }
}

/** The `bots` subcommand. */
export const command: Command = {
  options: ['token-file', 'token-env', 'alias', 'json', 'config', 'db', 'database-url'],
  summary: 'the bots a deployment serves: list, add (token checked), remove, pause, resume',
  run: (args) =>
    runBots(args, {
      env: process.env,
      cwd: process.cwd(),
      print: (line) => console.log(line),
      error: (line) => console.error(line),
      openCatalog: openBotsCatalog,
    }),
};
