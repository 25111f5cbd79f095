/**
 * botflow's PostgreSQL functions (`botflow_apply_batch`, `botflow_apply_ops`…) live once, as they are now, in
 * `migrations/postgres/functions/*.sql` (each `CREATE OR REPLACE`). A numbered migration that changes them
 * says so with a line `-- botflow:functions`, which the migration runner replaces with the whole folder: a
 * database at any version reaches the same definitions, and the history keeps no copies of old ones.
 *
 * A change to the folder needs a new numbered migration carrying the line (else databases already past the
 * last such migration would keep the old functions); the latest one names the folder's hash
 * (`-- botflow:functions 1a2b3c4d5e6f`), and test/store/postgres.test.ts fails when they differ.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MigrationError, type MigrationFile } from '../ports/migrations.ts';

/** The line a migration writes where the functions go, with the folder's hash on the latest one. */
export const FUNCTIONS_LINE = /^-- botflow:functions(?: ([0-9a-f]{12}))?[ \t]*$/m;

/** The functions folder's SQL (its files in name order) and the first 12 hex digits of its SHA-256. */
export function readFunctions(migrationsDir: string): { sql: string; hash: string } {
  const dir = join(migrationsDir, 'functions');
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((name) => name.endsWith('.sql'))
      .sort();
  } catch (cause) {
    throw new MigrationError(
      `cannot read ${dir}, which a migration's "-- botflow:functions" line asks for: ${(cause as Error).message}`,
    );
  }
  const sql = names.map((name) => readFileSync(join(dir, name), 'utf8')).join('\n');
  return { sql, hash: createHash('sha256').update(sql).digest('hex').slice(0, 12) };
}

/** `files` with each `-- botflow:functions` line replaced by the functions folder of `migrationsDir`. */
export function withFunctions(files: readonly MigrationFile[], migrationsDir: string): MigrationFile[] {
  if (!files.some((file) => FUNCTIONS_LINE.test(file.sql))) return [...files];
  const { sql } = readFunctions(migrationsDir);
  return files.map((file) =>
    FUNCTIONS_LINE.test(file.sql) ? { ...file, sql: file.sql.replace(FUNCTIONS_LINE, () => sql) } : file,
  );
}

/** The hash the latest migration with a functions line names (undefined: none names one). */
export function recordedFunctionsHash(files: readonly MigrationFile[]): string | undefined {
  const latest = files.filter((file) => FUNCTIONS_LINE.test(file.sql)).at(-1);
  return latest ? FUNCTIONS_LINE.exec(latest.sql)?.[1] : undefined;
}
