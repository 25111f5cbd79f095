/**
 * The migration runner: numbered `NNN_name.sql` files applied in order, each inside its own transaction,
 * recorded in `schema_migrations` and mirrored in `PRAGMA user_version`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { BotflowError } from '../errors/index.ts';

/** A migration problem a person must resolve: a database newer than the code, a bad file name, a failed script. */
export class MigrationError extends BotflowError {
  override name = 'MigrationError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_MIGRATION_FAILED', message, options);
  }
}

/** One migration file found on disk. */
export interface MigrationFile {
  /** The sequence number taken from the file name (`001_inbox.sql` → 1). */
  version: number;
  /** The file name, which is what `schema_migrations` records (`001_inbox.sql`). */
  name: string;
  /** The SQL text. */
  sql: string;
}

/** What `migrate()` did. */
export interface MigrationResult {
  /** File names applied by this call, in order; empty when the database was already current. */
  applied: string[];
}

const FILE_PATTERN = /^(\d{3,})_[a-z0-9][a-z0-9_-]*\.sql$/;

/** Reads and validates the migration files of `dir`, sorted by version. */
export function readMigrations(dir: string): MigrationFile[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (cause) {
    throw new MigrationError(`cannot read the migrations folder ${dir}: ${(cause as Error).message}`);
  }
  const files: MigrationFile[] = [];
  for (const name of entries) {
    if (!name.endsWith('.sql')) continue;
    const match = FILE_PATTERN.exec(name);
    if (!match) {
      throw new MigrationError(
        `${join(dir, name)}: a migration file must be named NNN_name.sql (three or more digits, lower-case name), ` +
          'for example 003_add_index.sql',
      );
    }
    files.push({ version: Number(match[1]), name, sql: readFileSync(join(dir, name), 'utf8') });
  }
  files.sort((a, b) => a.version - b.version);
  for (let i = 1; i < files.length; i++) {
    if (files[i]!.version === files[i - 1]!.version) {
      throw new MigrationError(
        `${dir}: ${files[i - 1]!.name} and ${files[i]!.name} share the number ${files[i]!.version}; renumber one of them`,
      );
    }
  }
  return files;
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
 * IMMEDIATE transaction, so two processes opening the same file at once never apply one twice, and a
 * failing script leaves the database at the previous version. Refuses a database newer than the code.
 */
export function migrate(db: Database.Database, dir: string): MigrationResult {
  const files = readMigrations(dir);
  ensureBookkeeping(db);
  refuseNewerDatabase(db, files, dir);
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').pluck();
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applied: string[] = [];
  for (const file of files) {
    const applyOne = db.transaction(() => {
      if (isApplied.get(file.version)) return false; // another process got there first
      db.exec(file.sql);
      record.run(file.version, file.name, Date.now());
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
