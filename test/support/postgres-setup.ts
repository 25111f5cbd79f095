/**
 * Vitest global setup: asks once whether the test PostgreSQL server answers, so that a machine without one
 * gets ONE line saying how to enable the PostgreSQL tests (which then skip), not one per test file. Under
 * CI a missing server fails the run. The answer reaches the test files as TEST_POSTGRES_STATE=up|skip (not a BOTFLOW_ name: botflow warns of unknown ones).
 */
import pg from 'pg';
import { POSTGRES_ADMIN_URL } from './postgres.ts';

export default async function setup(): Promise<void> {
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
  }
}
