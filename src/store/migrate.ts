/**
 * The migration runner: numbered `NNN_name.sql` files applied in order, each inside its own transaction,
 * recorded in `schema_migrations` and mirrored in `PRAGMA user_version`.
 */
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { MigrationError, type MigrationFile, readMigrations } from './ports/migrations.ts';
import { wallNow } from './ports/wall-time.ts';

export { MigrationError, type MigrationFile, readMigrations } from './ports/migrations.ts';

/** What `migrate()` did. */
export interface MigrationResult {
  /** File names applied by this call, in order; empty when the database was already current. */
  applied: string[];
}

function ensureBookkeeping(db: Database.Database): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (' +
      'version INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at INTEGER NOT NULL)',
  );
}

/** The migrations recorded in `db`, in version order (empty for a new database). */
export function appliedMigrations(
  db: Database.Database,
): { version: number; name: string; appliedAt: number }[] {
  ensureBookkeeping(db);
  return db
    .prepare('SELECT version, name, applied_at AS appliedAt FROM schema_migrations ORDER BY version')
    .all() as { version: number; name: string; appliedAt: number }[];
}

/** The migrations recorded in `db`, without creating the bookkeeping table (works read-only). */
export function recordedMigrations(
  db: Database.Database,
): { version: number; name: string; appliedAt: number }[] {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'").get();
  return hasTable ? appliedMigrations(db) : [];
}

function refuseNewerDatabase(db: Database.Database, files: MigrationFile[], dir: string): void {
  const known = new Map(files.map((f) => [f.version, f.name]));
  const newest = files.at(-1)?.version ?? 0;
  const userVersion = db.pragma('user_version', { simple: true }) as number;
  const unknown = appliedMigrations(db).filter((m) => known.get(m.version) !== m.name);
  if (unknown.length > 0 || userVersion > newest) {
    const names = unknown.map((m) => m.name).join(', ');
    throw new MigrationError(
      `this database was migrated by a newer botflow (schema version ${userVersion}` +
        (names ? `, migrations ${names}` : '') +
        `) than this code knows (newest migration in ${dir}: ${newest}). ` +
        'Upgrade botflow, or point it at another database file; never run old code on a newer database.',
    );
  }
}

/**
 * Applies every migration of `dir` that `db` has not recorded yet, in order. Each file runs in its own
 * IMMEDIATE transaction (a new database's all run in one), so two processes opening the same file at once never apply one twice, and a
 * failing script leaves the database at the previous version. Refuses a database newer than the code.
 */
export function migrate(db: Database.Database, dir: string): MigrationResult {
  const files = readMigrations(dir);
  ensureBookkeeping(db);
  refuseNewerDatabase(db, files, dir);
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').pluck();
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applied: string[] = [];
  // A new file (a new bot's) takes every migration in one transaction: one commit, one sync, not one each.
  if (!db.prepare('SELECT 1 FROM schema_migrations LIMIT 1').get()) {
    let current = '';
    const applyAll = db.transaction(() =>
      files
        .filter((file) => !isApplied.get(file.version))
        .map((file) => {
          current = file.name;
          db.exec(file.sql);
          record.run(file.version, file.name, wallNow());
          db.pragma(`user_version = ${file.version}`);
          return file.name;
        }),
    );
    try {
      return { applied: applyAll.immediate() };
    } catch (cause) {
      throw new MigrationError(
        `migration ${join(dir, current)} failed and was rolled back, with the new database's earlier ones: ` +
          (cause as Error).message,
        { cause },
      );
    }
  }
  for (const file of files) {
    const applyOne = db.transaction(() => {
      if (isApplied.get(file.version)) return false; // another process got there first
      db.exec(file.sql);
      record.run(file.version, file.name, wallNow());
      db.pragma(`user_version = ${file.version}`);
      return true;
    });
    try {
      if (applyOne.immediate()) applied.push(file.name);
    } catch (cause) {
      throw new MigrationError(
        `migration ${join(dir, file.name)} failed and was rolled back: ${(cause as Error).message}`,
        { cause },
      );
    }
  }
  return { applied };
}
