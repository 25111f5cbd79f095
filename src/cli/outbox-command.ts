import { parseArgs } from 'node:util';
import { type Config, ConfigError } from '../runtime/config.ts';
import { loadBotConfig } from '../runtime/config-select.ts';
import { type OpenStore, openStore } from '../store/open.ts';
import { systemClock } from '../store/ports/clock.ts';
import type { EngineStore } from '../store/ports/engine.ts';
import { databaseSource } from '../store/reader.ts';
import { type Command, databaseArgv } from './command.ts';

const HELP = `usage: botflow outbox list [--limit N] [--json]
       botflow outbox retry <id ...> | --all
       botflow outbox drop <id ...> | --all
options: --db <file> | --database-url <postgres://…> (default: database.path or database.url of the
configuration), --config <file>, --bot <name> (one bot of bots:)

Calls that failed for good (dead letters) stay in the outbox with their error. list shows them, newest
first; retry puts them back in line (sent in their conversation's order by the running bot, or at its
next start); drop gives up on them.`;

/** The `outbox` subcommand. */
export const command: Command = {
  summary: 'list the calls that failed for good, send them again (retry) or give them up (drop)',
  async run(args) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      console.error(`botflow outbox: ${(error as Error).message}\n\n${HELP}`);
      return 2;
    }
    const { values, positionals } = parsed;
    const [action, ...rest] = positionals;
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (action !== 'list' && action !== 'retry' && action !== 'drop') {
      console.error(
        `botflow outbox: ${action ? `unknown action "${action}"` : 'say list, retry or drop'}\n\n${HELP}`,
      );
      return 2;
    }
    const ids = rest.map(Number);
    if (
      action !== 'list' &&
      (ids.some((id) => !Number.isSafeInteger(id) || id <= 0) || (ids.length === 0) === !values.all)
    ) {
      console.error(
        `botflow outbox ${action}: give the ids to ${action} (from botflow outbox list), or --all`,
      );
      return 2;
    }
    let database: Config['database'];
    try {
      database = loadBotConfig({ argv: databaseArgv(values) }, values.bot, 'botflow outbox').database;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(`botflow outbox: ${error.message}`);
      return 2;
    }
    let opened: OpenStore;
    try {
      opened = await openStore(databaseSource(database));
    } catch (error) {
      console.error(`botflow outbox: ${(error as Error).message}`);
      return 2;
    }
    const { support } = opened.store;
    try {
      if (action === 'list') return await list(support, Number(values.limit ?? 100), values.json === true);
      const which = values.all ? undefined : ids;
      const changed =
        action === 'retry'
          ? await support.retryDeadLetters(which)
          : await support.dropDeadLetters(which, systemClock.now());
      console.log(`${changed} call(s) ${action === 'retry' ? 'put back in line' : 'dropped'}`);
      return changed === 0 && !values.all ? 1 : 0;
    } finally {
      await opened.close();
    }
  },
};

function parse(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      bot: { type: 'string' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      limit: { type: 'string' },
      db: { type: 'string' },
      'database-url': { type: 'string' },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

async function list(support: EngineStore['support'], limit: number, json: boolean): Promise<number> {
  const rows = await support.deadLetters(limit);
  if (json) {
    console.log(JSON.stringify(rows.map(({ args: _args, result: _result, ...row }) => row)));
    return 0;
  }
  if (rows.length === 0) {
    console.log('no failed calls');
    return 0;
  }
  for (const row of rows) {
    const at = row.finishedAt ? new Date(row.finishedAt).toISOString() : '?';
    console.log(
      `${row.id}\t${at}\t${row.conversationKey}\t${row.op}\t${row.attempts} attempt(s)\t${row.error ?? ''}`,
    );
  }
  console.log(
    `\n${rows.length} failed call(s): botflow outbox retry <id ...> sends them again, drop gives them up`,
  );
  return 0;
}
