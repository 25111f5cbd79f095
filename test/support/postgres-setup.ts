/**
 * Vitest global setup: asks once whether the test PostgreSQL server answers, so that a machine without one
 * gets ONE line saying how to enable the PostgreSQL tests (which then skip), not one per test file. Under
 * CI a missing server fails the run. The answer reaches the test files as TEST_POSTGRES_STATE=up|skip (not a BOTFLOW_ name: botflow warns of unknown ones).
 *
 * With a server, it also migrates one template database for the run (TEST_POSTGRES_TEMPLATE): the tests'
 * `migratedDatabase()` copies it instead of applying every migration again for each database, which took
 * a second apiece on a loaded machine, and may empty a dropped copy for the next test instead of dropping
 * it (postgres-reuse.ts). The template and its copies are dropped after the run. (In watch mode, restart
 * after editing a migration: the template is made once per start.)
 */
import pg from 'pg';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { freshDatabase, POSTGRES_ADMIN_URL } from './postgres.ts';
import { SCHEMA_FINGERPRINT_SQL } from './postgres-reuse.ts';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    process.env.TEST_POSTGRES_STATE = 'up';
  } catch (error) {
    const host = new URL(POSTGRES_ADMIN_URL).host;
    if (process.env.CI)
      throw new Error(
        `PostgreSQL tests need a server under CI and none answers at ${host}: ${(error as Error).message}`,
      );
    console.warn(
      `PostgreSQL tests skipped: no server at ${host}. To run them, start PostgreSQL ` +
        'or set BOTFLOW_TEST_POSTGRES_URL=postgres://user@host:5432/postgres',
    );
    process.env.TEST_POSTGRES_STATE = 'skip';
    return undefined;
  }
  return migratedTemplate();
}

/**
 * Makes the run's migrated template and names it in TEST_POSTGRES_TEMPLATE, with its schema's fingerprint
 * in TEST_POSTGRES_FINGERPRINT (postgres-reuse.ts); answers the teardown, which drops it and its copies.
 */
async function migratedTemplate(): Promise<() => Promise<void>> {
  const template = await freshDatabase();
  const name = new URL(template.url).pathname.slice(1);
  try {
    // No connection may stay open to a template: CREATE DATABASE … TEMPLATE refuses while one does.
    const db = await openPostgres({ url: template.url, max: 1 });
    try {
      process.env.TEST_POSTGRES_FINGERPRINT = (
        await db.pool.query(SCHEMA_FINGERPRINT_SQL)
      ).rows[0].fingerprint;
    } finally {
      await db.close();
    }
  } catch (error) {
    await template.drop();
    throw error;
  }
  process.env.TEST_POSTGRES_TEMPLATE = name;
  return async () => {
    delete process.env.TEST_POSTGRES_TEMPLATE;
    delete process.env.TEST_POSTGRES_FINGERPRINT;
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    try {
      const copies = await admin.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname LIKE $1 || '\\_%'",
        [name],
      );
      for (const { datname } of copies.rows)
        await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
    await template.drop();
  };
}
