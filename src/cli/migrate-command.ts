/**
 * `botflow migrate [--status] [--db file | --database-url postgres://…]`: applies pending migrations to the
 * bot's database (the one `botflow run` uses: SQLite, or PostgreSQL with `database.url`), or with
 * `--status` only lists applied and pending ones. `--from sqlite:<file> --to postgres://…` moves a bot's
 * data from SQLite to a new PostgreSQL database.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { isBotflowError } from '../errors/index.ts';
import { type Config, ConfigError } from '../runtime/config.ts';
import { everyBotConfig } from '../runtime/config-select.ts';
import { DEFAULT_MIGRATIONS_DIR, openDatabase } from '../store/database.ts';
import { MigrationError, readMigrations, recordedMigrations } from '../store/migrate.ts';
import { copyFromSqlite } from '../store/postgres/copy-from-sqlite.ts';
import {
  openPostgres,
  POSTGRES_MIGRATIONS_DIR,
  type PostgresDatabase,
  pgAppliedMigrations,
} from '../store/postgres/database.ts';
import { openPostgresExisting } from '../store/postgres/reader.ts';
import { SQLite } from '../store/sqlite.ts';
import { type Command, databaseArgv } from './command.ts';

const HELP = `usage: botflow migrate [--status] [--db <file> | --database-url <postgres://…>] [--config <file>]
                       [--bot <name>]
       botflow migrate --from sqlite:<file> --to <postgres://…>

Applies the pending migrations to the bot's database, each in its own transaction: the SQLite file
(database.path, BOTFLOW_DATABASE_PATH, or --db), or PostgreSQL (database.url, BOTFLOW_DATABASE_URL, or
--database-url). \`botflow run\` does the same at start; run this to migrate ahead of a deployment.
--status lists applied and pending migrations, changing nothing. A database migrated by a newer botflow
is refused. With bots: (docs/bots.md), every bot's file or PostgreSQL schema in turn, or the one of
--bot <name>.

--from sqlite:<file> --to <postgres://…> copies a SQLite bot's data (sessions, inbox, outbox, timers,
tasks, flow versions, settings) into a new PostgreSQL database, in one transaction; the SQLite file is
only read. Stop the bot first; then start its processes with database.url.`;

export const command: Command = {
  options: ['status', 'db', 'config', 'database-url', 'from', 'to', 'bot'],
  summary: 'apply pending database migrations (--status: list them)',
  async run(args) {
    let values: {
      status?: boolean;
      bot?: string;
      db?: string;
      config?: string;
      help?: boolean;
      'database-url'?: string;
      from?: string;
      to?: string;
    };
    try {
      ({ values } = parseArgs({
        args,
        strict: true,
        options: {
          status: { type: 'boolean' },
          bot: { type: 'string' },
          db: { type: 'string' },
          config: { type: 'string' },
          'database-url': { type: 'string' },
          from: { type: 'string' },
          to: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      }));
    } catch (error) {
      console.error(`botflow migrate: ${(error as Error).message}\n\n${HELP}`);
      return 2;
    }
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (values.from !== undefined || values.to !== undefined) return copy(values.from, values.to);
    let targets: Config[];
    try {
      targets = everyBotConfig({ argv: databaseArgv(values) }, values.bot, 'botflow migrate');
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(`botflow migrate: ${error.message}`);
      return 2;
    }
    let code = 0;
    // Without --bot, every bot of bots: in turn (each its own file or schema).
    for (const config of targets) code = Math.max(code, await migrateOne(config, values.status === true));
    return code;
  },
};

function status(path: string): number {
  const files = readMigrations(DEFAULT_MIGRATIONS_DIR);
  if (path !== ':memory:' && !existsSync(path)) {
    console.log(`${path}: no database yet; ${files.length} migration(s) will be applied at first start`);
    return 0;
  }
  const db = new SQLite(path, { readonly: true });
  try {
    const applied = new Map(recordedMigrations(db).map((m) => [m.name, m.appliedAt]));
    for (const f of files) {
      const at = applied.get(f.name);
      console.log(`${at ? 'applied' : 'pending'}  ${f.name}${at ? `  ${new Date(at).toISOString()}` : ''}`);
      applied.delete(f.name);
    }
    for (const name of applied.keys()) console.log(`unknown  ${name}  (applied by a newer botflow)`);
    return applied.size > 0 ? 1 : 0;
  } finally {
    db.close();
  }
}

/** Applies PostgreSQL migrations (in a bot's `schema`, created if missing); prints them and where (password masked). */
async function migrateTo(url: string, schema?: string): Promise<number> {
  try {
    const pg = await openPostgres({
      url,
      ...(schema !== undefined ? { schema } : {}),
      logger: { info: (o) => console.log(`applied ${o.migration}`) },
    });
    console.log(`${pg.where}${schema !== undefined ? ` (schema ${schema})` : ''}: up to date`);
    await pg.close();
    return 0;
  } catch (error) {
    console.error(`botflow migrate: ${(error as Error).message}`);
    return 1;
  }
}

async function postgresStatus(url: string, schema?: string): Promise<number> {
  let pg: PostgresDatabase;
  try {
    pg = await openPostgresExisting(url, schema);
  } catch (error) {
    if (schema !== undefined && isBotflowError(error) && error.code === 'BOTFLOW_DATABASE_UNREADABLE') {
      const count = readMigrations(POSTGRES_MIGRATIONS_DIR).length;
      console.log(`schema ${schema}: not created yet; ${count} migration(s) will be applied at first start`);
      return 0;
    }
    console.error(`botflow migrate: ${(error as Error).message}`);
    return 1;
  }
  try {
    const files = readMigrations(POSTGRES_MIGRATIONS_DIR);
    const applied = new Map((await pgAppliedMigrations(pg.pool)).map((r) => [r.name, r.appliedAt]));
    for (const f of files) {
      const at = applied.get(f.name);
      console.log(`${at ? 'applied' : 'pending'}  ${f.name}${at ? `  ${new Date(at).toISOString()}` : ''}`);
      applied.delete(f.name);
    }
    for (const name of applied.keys()) console.log(`unknown  ${name}  (applied by a newer botflow)`);
    return applied.size > 0 ? 1 : 0;
  } finally {
    await pg.close();
  }
}

/** `--from sqlite:<file> --to postgres://…`: copies a SQLite bot into a new PostgreSQL database. */
async function copy(from: string | undefined, to: string | undefined): Promise<number> {
  if (!from?.startsWith('sqlite:') || !to || !/^postgres(ql)?:\/\//.test(to)) {
    console.error('botflow migrate: --from sqlite:<file> and --to postgres://… go together\n\n' + HELP);
    return 2;
  }
  const file = from.slice('sqlite:'.length);
  if (!existsSync(file)) {
    console.error(`botflow migrate: ${file}: no such SQLite database`);
    return 2;
  }
  const sqlite = new SQLite(file, { readonly: true });
  let pg: PostgresDatabase | undefined;
  try {
    const files = readMigrations(DEFAULT_MIGRATIONS_DIR).map((f) => f.name);
    const recorded = recordedMigrations(sqlite).map((m) => m.name);
    const missing = files.filter((name) => !recorded.includes(name));
    if (missing.length > 0) {
      console.error(
        `botflow migrate: ${file} is not up to date (${missing.join(', ')} pending): run botflow migrate --db ${file} first`,
      );
      return 1;
    }
    pg = await openPostgres({ url: to });
    const report = await copyFromSqlite(sqlite, pg.pool);
    const lines = Object.entries(report).map(([table, n]) => `${table} ${n}`);
    console.log(`copied ${file} to ${pg.where}: ${lines.join(', ')}`);
    return 0;
  } catch (error) {
    console.error(`botflow migrate: ${(error as Error).message}`);
    return 1;
  } finally {
    sqlite.close();
    await pg?.close();
  }
}

/** Migrates (or, with `status`, lists the migrations of) one bot's database. */
async function migrateOne(config: Config, showStatus: boolean): Promise<number> {
  const { path, synchronous, schema } = config.database;
  const url = config.database.url?.reveal();
  // A bot of bots: on PostgreSQL: its schema (bot_<name>).
  if (url !== undefined) return showStatus ? postgresStatus(url, schema) : migrateTo(url, schema);
  try {
    if (showStatus) return status(path);
    // A bot's file of a deployment (data/bots/<name>.db): its folder is botflow's to make.
    if (basename(dirname(path)) === 'bots') mkdirSync(dirname(path), { recursive: true });
    const db = openDatabase({
      path,
      synchronous,
      logger: { info: (o) => console.log(`applied ${o.migration}`) },
    });
    console.log(`${path}: schema version ${db.pragma('user_version', { simple: true })}, up to date`);
    db.close();
    return 0;
  } catch (error) {
    if (!(error instanceof MigrationError)) throw error;
    console.error(`botflow migrate: ${error.message}`);
    return 1;
  }
}
