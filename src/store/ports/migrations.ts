/**
 * The migration files both adapters read (SQLite: store/migrate.ts; PostgreSQL: postgres/database.ts and
 * functions.ts), and the error a person must resolve.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BotflowError } from '../../errors/index.ts';

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
