/**
 * Opening botflow's PostgreSQL database (several processes share it): a connection pool with ms-time
 * columns read as numbers, then the pending migrations of `migrations/postgres/`, applied under an
 * advisory lock so that processes starting together never apply one twice.
 *
 *   const pg = await openPostgres({ url: 'postgres://bot@db/bot' });
 *   …
 *   await pg.close();
 */
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { BotflowError } from '../../errors/index.ts';
import { MigrationError, readMigrations } from '../ports/migrations.ts';
import { wallNow } from '../ports/wall-time.ts';
import { withFunctions } from './functions.ts';
import { transactionOn } from './transaction.ts';

export { hash32, PARTITIONS, partitionOf } from '../ports/partitions.ts';

/** The `migrations/postgres/` folder shipped with botflow. */
export const POSTGRES_MIGRATIONS_DIR = fileURLToPath(
  new URL('../../../migrations/postgres', import.meta.url),
);

/** How to open the database. */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` (the password never appears in a log or an error). */
  url: string;
  /** Connections in the pool (default 6). */
  max?: number;
  /** Folder of numbered `.sql` migrations (default botflow's `migrations/postgres/`). */
  migrationsDir?: string;
  /** Receives one info line per applied migration. */
  logger?: { info(details: { migration: string; db: string }, message: string): void };
  /** Apply pending migrations when opening (default true; `botflow migrate` does it explicitly). */
  migrate?: boolean;
  /** The schema this bot's tables live in (`search_path`), one per bot of a deployment; default `public`. */
  schema?: string;
}

/** An open database: the pool, and the URL without its password for logs. */
export interface PostgresDatabase {
  pool: pg.Pool;
  /** The URL with the password masked. */
  where: string;
  close(): Promise<void>;
}

/** A URL fit for logs and errors: the password is masked. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

const BIGINT = 20;
const NUMERIC = 1700;
/** bigint columns hold ms times and ids, all well inside 2^53: read as numbers, not strings. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === BIGINT || oid === NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/** A fixed key for the migration lock (pg_advisory_lock): "botf" in ASCII. */
const MIGRATION_LOCK = 0x626f7466;

/** Opens a pool on `options.url` and applies pending migrations; throws a clear error when it cannot connect. */
export async function openPostgres(options: PostgresOptions): Promise<PostgresDatabase> {
  const where = redactUrl(options.url);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 6,
    types,
    application_name: 'botflow',
  });
  // An idle client that loses its connection must not crash the process: the pool drops it.
  pool.on('error', () => {});
  try {
    const client = await pool.connect().catch((cause: Error) => {
      throw new BotflowError(
        'BOTFLOW_POSTGRES_CONNECT',
        `cannot connect to PostgreSQL at ${where}: ${cause.message.replaceAll(options.url, where)}. ` +
          'Check that the server runs and the URL (database.url or BOTFLOW_DATABASE_URL) is right.',
      );
    });
    client.release();
    if (options.migrate !== false) {
      const applied = await migratePostgres(pool, options.migrationsDir ?? POSTGRES_MIGRATIONS_DIR);
      for (const name of applied) options.logger?.info({ migration: name, db: where }, 'migration applied');
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  return { pool, where, close: () => pool.end() };
}

/**
 * Applies the migrations of `dir` that the database has not recorded, each in its own transaction, under
 * an advisory lock. Refuses a database migrated by a newer botflow. Returns the names applied.
 */
export async function migratePostgres(pool: pg.Pool, dir: string): Promise<string[]> {
  const files = withFunctions(readMigrations(dir), dir);
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL UNIQUE, ' +
        'applied_at bigint NOT NULL)',
    );
    const { rows } = await client.query<{ version: number; name: string }>(
      'SELECT version, name FROM schema_migrations ORDER BY version',
    );
    const known = new Map(files.map((f) => [f.version, f.name]));
    const unknown = rows.filter((row) => known.get(row.version) !== row.name);
    if (unknown.length > 0) {
      throw new MigrationError(
        `this database was migrated by a newer botflow (migrations ${unknown.map((m) => m.name).join(', ')}) ` +
          'than this code knows. Upgrade botflow; never run old code on a newer database.',
      );
    }
    const done = new Set(rows.map((row) => row.version));
    for (const file of files) {
      if (done.has(file.version)) continue;
      try {
        await transactionOn(client, async () => {
          await client.query(file.sql);
          await client.query(
            'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
            [file.version, file.name, wallNow()],
          );
        });
      } catch (cause) {
        throw new MigrationError(
          `migration ${file.name} failed and was rolled back: ${(cause as Error).message}`,
          { cause },
        );
      }
      applied.push(file.name);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
  return applied;
}

/** The migrations recorded in the database, with when they were applied (none before the first). */
export async function pgAppliedMigrations(pool: pg.Pool): Promise<{ name: string; appliedAt: number }[]> {
  const { rows } = await pool
    .query<{ name: string; appliedAt: number }>(
      'SELECT name, applied_at AS "appliedAt" FROM schema_migrations ORDER BY version',
    )
    .catch(() => ({ rows: [] as { name: string; appliedAt: number }[] }));
  return rows;
}

/**
 * A connection of its own that hears `channels` (LISTEN); `onEnd` when it drops. Undefined: could not connect.
 * `session` is its server process id: it lives exactly as long as the connection, so the others can tell
 * that this process died (its socket closed) without waiting for its leases to lapse (leases.ts).
 */
export async function pgListen(
  database: PostgresDatabase,
  channels: readonly string[],
  onNotify: (channel: string, payload?: string) => void,
  onEnd: () => void,
): Promise<{ close(): Promise<void>; session: number } | undefined> {
  const connectionString = (database.pool.options as { connectionString?: string }).connectionString;
  const client = new pg.Client({ connectionString });
  client.on('error', () => {});
  client.on('end', onEnd);
  client.on('notification', (message) => onNotify(message.channel, message.payload));
  try {
    await client.connect();
    await client.query(channels.map((c) => `LISTEN ${c}`).join('; '));
    const { rows } = await client.query<{ session: number }>('SELECT pg_backend_pid() AS session');
    return { close: () => client.end(), session: rows[0]!.session };
  } catch {
    await client.end().catch(() => {});
    return undefined;
  }
}
