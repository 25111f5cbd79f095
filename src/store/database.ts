/**
 * Opening botflow's SQLite database: the pragmas every module relies on, then pending migrations.
 */
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { migrate } from './migrate.ts';
import { SQLite } from './sqlite.ts';

export { MigrationError } from './migrate.ts';

/** The `migrations/` folder shipped with botflow. */
export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

/** How to open the database. */
export interface DatabaseOptions {
  /** A file path, or `':memory:'` for a private in-memory database (tests). */
  path: string;
  /**
   * `FULL` (default): a committed transaction survives a power loss, which is what lets the webhook
   * acknowledge an update the moment its row is committed. `NORMAL` survives a process crash but may lose
   * the last transactions on power loss, for roughly twice the commit rate.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** Folder of numbered `.sql` migrations; defaults to botflow's own `migrations/`. */
  migrationsDir?: string;
  /** How long a writer waits for another connection's lock before failing, in ms (default 5000). */
  busyTimeoutMs?: number;
  /** Receives one info line per applied migration (a pino logger fits). */
  logger?: { info(details: { migration: string; db: string }, message: string): void };
}

/**
 * Opens (creating if needed) the database at `options.path` in WAL mode, sets the pragmas, applies pending
 * migrations and returns the connection. Throws `MigrationError` for a database newer than the code.
 */
export function openDatabase(options: DatabaseOptions): Database.Database {
  const db = new SQLite(options.path);
  try {
    if (options.path !== ':memory:') db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    db.pragma('foreign_keys = ON');
    db.pragma('cache_size = -32000'); // 32 MB of page cache
    db.pragma('temp_store = MEMORY');
    const { applied } = migrate(db, options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR);
    for (const name of applied)
      options.logger?.info({ migration: name, db: options.path }, 'migration applied');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
