// botflow's PostgreSQL functions live once, in migrations/postgres/functions/; numbered migrations include
// them with a `-- botflow:functions` line (src/store/postgres/functions.ts).
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MigrationError, readMigrations } from '../../src/store/migrate.ts';
import { openPostgres, POSTGRES_MIGRATIONS_DIR } from '../../src/store/postgres/database.ts';
import { readFunctions, recordedFunctionsHash, withFunctions } from '../../src/store/postgres/functions.ts';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-functions-'));
  temps.push(dir);
  return dir;
}

describe('PostgreSQL functions, one definition each', () => {
  it('a change to the functions folder comes with a new migration naming its hash', () => {
    const { hash } = readFunctions(POSTGRES_MIGRATIONS_DIR);
    const recorded = recordedFunctionsHash(readMigrations(POSTGRES_MIGRATIONS_DIR));
    expect(
      recorded,
      `migrations/postgres/functions/ changed: add a numbered migration with the line "-- botflow:functions ${hash}" ` +
        '(databases past the last such migration would keep the old functions otherwise)',
    ).toBe(hash);
  });

  it('no numbered migration defines a function of its own', () => {
    for (const file of readMigrations(POSTGRES_MIGRATIONS_DIR))
      expect(file.sql).not.toMatch(/CREATE (OR REPLACE )?FUNCTION/);
  });

  it('replaces the line with the folder, and says what is missing when the folder is not there', () => {
    const files = [
      { version: 1, name: '001_a.sql', sql: 'CREATE TABLE a (x int);\n-- botflow:functions\n' },
      { version: 2, name: '002_b.sql', sql: 'CREATE TABLE b (x int);\n' },
    ];
    const expanded = withFunctions(files, POSTGRES_MIGRATIONS_DIR);
    expect(expanded[0]!.sql).toContain('CREATE OR REPLACE FUNCTION botflow_apply_batch');
    expect(expanded[0]!.sql).not.toContain('-- botflow:functions');
    expect(expanded[1]).toEqual(files[1]);
    const empty = tempDir();
    expect(() => withFunctions(files, empty)).toThrow(MigrationError);
    expect(() => withFunctions(files, empty)).toThrow(/botflow:functions/);
    expect(withFunctions([files[1]!], empty)).toEqual([files[1]]);
  });
});

async function definitions(url: string, migrationsDir?: string): Promise<string[]> {
  const database = await openPostgres({ url, ...(migrationsDir ? { migrationsDir } : {}) });
  try {
    const { rows } = await database.pool.query<{ def: string }>(
      "SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY p.oid::regprocedure::text",
    );
    return rows.map((r) => r.def);
  } finally {
    await database.close();
  }
}

describe.skipIf(!up)('PostgreSQL functions after migrating', () => {
  it('a database upgraded from an older version has the same functions as a new one', async () => {
    // An older botflow's folder: the first four migrations (then a database stops there), with the functions.
    const older = tempDir();
    for (const name of readdirSync(POSTGRES_MIGRATIONS_DIR).filter((n) => /^00[1-4]_/.test(n)))
      cpSync(join(POSTGRES_MIGRATIONS_DIR, name), join(older, name));
    cpSync(join(POSTGRES_MIGRATIONS_DIR, 'functions'), join(older, 'functions'), { recursive: true });
    const upgraded = await freshDatabase();
    const fresh = await freshDatabase();
    try {
      await definitions(upgraded.url, older);
      const after = await definitions(upgraded.url);
      const created = await definitions(fresh.url);
      expect(after).toEqual(created);
      const names = created.map((def) => /FUNCTION public\.(\w+)\(/.exec(def)?.[1]).sort();
      const inFolder = [...readFunctions(POSTGRES_MIGRATIONS_DIR).sql.matchAll(/FUNCTION (botflow_\w+)\(/g)]
        .map((m) => m[1])
        .sort();
      expect(names).toEqual(inFolder);
    } finally {
      await upgraded.drop();
      await fresh.drop();
    }
  });
});
