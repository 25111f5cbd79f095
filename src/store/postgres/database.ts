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
import { MigrationError, type MigrationFile, readMigrations } from '../ports/migrations.ts';
import { wallNow } from '../ports/wall-time.ts';
import { withFunctions } from './functions.ts';
import {
  checkSchema,
  connectPool,
  DEFAULT_SCHEMA,
  redactUrl,
  type SharedPostgres,
  sharedOver,
} from './shared.ts';
import { transactionOn } from './transaction.ts';

export { hash32, PARTITIONS, partitionOf } from '../ports/partitions.ts';
export {
  channelsOf,
  dropPostgresSchema,
  openSharedPostgres,
  redactUrl,
  type SharedPostgres,
  type SharedPostgresOptions,
} from './shared.ts';

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
  /**
   * The bot's schema (`^[a-z_][a-z0-9_]{0,62}$`, not pg_*, information_schema or botflow_deployment): created
   * if missing, its statements, migrations and notification channels its own. Default: the default schema.
   */
  schema?: string;
  /** The process's pool and LISTEN connection (`openSharedPostgres`), shared by its bots; `max` is then ignored. */
  shared?: SharedPostgres;
}

/** An open database: the pool, and the URL without its password for logs. */
export interface PostgresDatabase {
  /** The pool (with `schema`, a view of the shared pool whose statements run in the schema). */
  pool: pg.Pool;
  /** The URL with the password masked. */
  where: string;
  /** The bot's schema (undefined: opened without one, the default schema on a pool of its own). */
  schema?: string;
  /** The process's pool and LISTEN connection this database uses (set whenever `schema` is). */
  shared?: SharedPostgres;
  /** Ends the pool when it is the database's own; a shared pool stays open for the other bots. */
  close(): Promise<void>;
}

/** A fixed key for the migration lock (pg_advisory_lock): "botf" in ASCII; with the schema's hash in another. */
const MIGRATION_LOCK = 0x626f7466;

/**
 * Opens the database and applies pending migrations; throws a clear error when it cannot connect. With
 * `schema`, every statement runs in that schema (created if missing; its migrations and `schema_migrations`
 * inside it) on `shared`'s pool, or on a pool of its own without `shared`. Without `schema`, the default
 * schema as before.
 */
export async function openPostgres(options: PostgresOptions): Promise<PostgresDatabase> {
  const schema = options.schema === undefined ? undefined : checkSchema(options.schema);
  if (!options.shared && schema === undefined) {
    const pool = await connectPool(options.url, options.max ?? 6);
    const database: PostgresDatabase = { pool, where: redactUrl(options.url), close: () => pool.end() };
    await migrateOnOpen(database, options).catch(async (error) => {
      await pool.end();
      throw error;
    });
    return database;
  }
  const own = options.shared
    ? undefined
    : sharedOver(await connectPool(options.url, options.max ?? 6), redactUrl(options.url));
  const shared = (options.shared ?? own) as SharedPostgres;
  const database: PostgresDatabase = {
    pool: shared.schemaPool(schema ?? DEFAULT_SCHEMA),
    where: shared.where,
    schema: schema ?? DEFAULT_SCHEMA,
    shared,
    close: async () => {
      await own?.close();
    },
  };
  await migrateOnOpen(database, options).catch(async (error) => {
    await own?.close();
    throw error;
  });
  return database;
}

async function migrateOnOpen(database: PostgresDatabase, options: PostgresOptions): Promise<void> {
  if (options.migrate === false) return;
  const dir = options.migrationsDir ?? POSTGRES_MIGRATIONS_DIR;
  const applied = await migratePostgres(database.pool, dir, database.schema);
  for (const name of applied)
    options.logger?.info({ migration: name, db: database.where }, 'migration applied');
}

/**
 * Applies the migrations of `dir` that the database has not recorded, each in its own transaction, under
 * an advisory lock. Refuses a database migrated by a newer botflow. Returns the names applied.
 */
export async function migratePostgres(pool: pg.Pool, dir: string, schema?: string): Promise<string[]> {
  const files = withFunctions(readMigrations(dir), dir);
  const client = await pool.connect();
  const applied: string[] = [];
  // The default schema keeps the lock of a single bot's database; another schema has a lock of its own.
  const own = schema !== undefined && schema !== DEFAULT_SCHEMA;
  const lock: [string, unknown[]] = own
    ? ['($1, hashtext($2))', [MIGRATION_LOCK, schema]]
    : ['($1)', [MIGRATION_LOCK]];
  try {
    await client.query(`SELECT pg_advisory_lock${lock[0]}`, lock[1]);
    if (own) await client.query(`CREATE SCHEMA IF NOT EXISTS "${checkSchema(schema)}"`);
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
    // A bot's new schema takes every migration in one transaction and one round trip (half the time of one
    // each: adding many bots is dominated by it); all are then applied or none.
    if (own && done.size === 0 && files.length > 0) return await migrateAtOnce(client, files);
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
    await client.query(`SELECT pg_advisory_unlock${lock[0]}`, lock[1]).catch(() => {});
    client.release();
  }
  return applied;
}

/** Every migration of `files` in one transaction on `client` (a new schema's), recorded as one by one. */
async function migrateAtOnce(client: pg.PoolClient, files: readonly MigrationFile[]): Promise<string[]> {
  const at = wallNow();
  const recorded = files
    .map((f) => `(${Number(f.version)}, '${f.name.replaceAll("'", "''")}', ${at})`)
    .join(', ');
  try {
    await transactionOn(client, () =>
      client.query(
        `${files.map((f) => f.sql).join(';\n')};\n` +
          `INSERT INTO schema_migrations (version, name, applied_at) VALUES ${recorded}`,
      ),
    );
  } catch (cause) {
    throw new MigrationError(
      `migrating a new schema (${files.map((f) => f.name).join(', ')}) failed and was rolled back: ${(cause as Error).message}`,
      { cause },
    );
  }
  return files.map((f) => f.name);
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
 * that this process died (its socket closed) without waiting for its leases to lapse (leases.ts). On a shared
 * pool (`database.shared`), a subscription on the process's one LISTEN connection, whose id is the session.
 */
export async function pgListen(
  database: PostgresDatabase,
  channels: readonly string[],
  onNotify: (channel: string, payload?: string) => void,
  onEnd: () => void,
): Promise<{ close(): Promise<void>; session: number } | undefined> {
  // Bots sharing the process's pool share its one LISTEN connection too.
  if (database.shared) return database.shared.listen(channels, onNotify, onEnd);
  const connectionString = (database.pool.options as { connectionString?: string }).connectionString;
  const client = new pg.Client({ connectionString });
  client.on('error', () => {});
  client.on('end', onEnd);
  client.on('notification', (message) => onNotify(message.channel, message.payload));
  try {
    await client.connect();
    await client.query(channels.map((c) => `LISTEN "${c}"`).join('; '));
    const { rows } = await client.query<{ session: number }>('SELECT pg_backend_pid() AS session');
    return { close: () => client.end(), session: rows[0]!.session };
  } catch {
    await client.end().catch(() => {});
    return undefined;
  }
}
