/**
 * `botflow outbox list | retry | drop`: the calls that failed for good (dead letters: refused by the
 * platform, or still failing when their time-to-live ended), listed, sent again, or given up, on the
 * database `botflow run` uses (SQLite, or PostgreSQL with --database-url / database.url). Re-driven calls go out in their conversation's order at the next dispatch
 * (at once when the bot runs; otherwise at its next start).
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../runtime/config.ts';
import { openDatabase } from '../store/database.ts';
import { type OutboxRow, OutboxStore } from '../store/outbox.ts';
import { openPostgres, type PostgresDatabase } from '../store/postgres/database.ts';
import { PgOutbox } from '../store/postgres/outbox.ts';
import { type Command, databaseArgv } from './command.ts';

const HELP = `usage: botflow outbox list [--limit N] [--json]
       botflow outbox retry <id ...> | --all
       botflow outbox drop <id ...> | --all
options: --db <file> | --database-url <postgres://…> (default: database.path or database.url of the
configuration), --config <file>

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
    let database: ReturnType<typeof loadConfig>['database'];
    try {
      database = loadConfig({ argv: databaseArgv(values) }).database;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(`botflow outbox: ${error.message}`);
      return 2;
    }
    const url = database.url?.reveal();
    if (url === undefined && !existsSync(database.path)) {
      console.error(
        `botflow outbox: no database at ${database.path}: give --db, or run from the bot's folder`,
      );
      return 2;
    }
    let store: DeadLetters;
    let close: () => Promise<void> | void;
    if (url !== undefined) {
      let pg: PostgresDatabase;
      try {
        pg = await openPostgres({ url, migrate: false });
      } catch (error) {
        console.error(`botflow outbox: ${(error as Error).message}`);
        return 2;
      }
      store = new PgOutbox(pg.pool);
      close = () => pg.close();
    } else {
      const db = openDatabase({ path: database.path });
      store = new OutboxStore(db);
      close = () => {
        db.close();
      };
    }
    try {
      if (action === 'list') return await list(store, Number(values.limit ?? 100), values.json === true);
      const changed =
        action === 'retry'
          ? await store.retryFailed(values.all ? undefined : ids)
          : await store.dropFailed(values.all ? undefined : ids);
      console.log(`${changed} call(s) ${action === 'retry' ? 'put back in line' : 'dropped'}`);
      return changed === 0 && !values.all ? 1 : 0;
    } finally {
      await close();
    }
  },
};

/** Dead letters on SQLite (OutboxStore) or PostgreSQL (PgOutbox). */
interface DeadLetters {
  failed(limit: number): OutboxRow[] | Promise<OutboxRow[]>;
  retryFailed(ids?: readonly number[]): number | Promise<number>;
  dropFailed(ids?: readonly number[]): number | Promise<number>;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
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

async function list(outbox: DeadLetters, limit: number, json: boolean): Promise<number> {
  const rows = await outbox.failed(limit);
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
