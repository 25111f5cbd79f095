/**
 * PostgreSQL for tests: a real server (never a mock). `BOTFLOW_TEST_POSTGRES_URL` names a database on it
 * that the tests may connect to and create databases from (default: the local server's `postgres`
 * database, trust authentication). Each test file gets a fresh database and drops it afterwards.
 *
 * Without a server, `npm test` skips only the PostgreSQL tests and says once how to enable them; under
 * CI (`CI=true`) a missing server is an error, so CI never passes by skipping.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const POSTGRES_ADMIN_URL =
  process.env.BOTFLOW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let checked: Promise<boolean> | undefined;

/** True when the server answers; false (with one line on stderr) when it does not, outside CI. */
export function postgresAvailable(): Promise<boolean> {
  // Asked once for the whole run by the global setup (postgres-setup.ts), which printed the one line.
  if (process.env.TEST_POSTGRES_STATE === 'up') return Promise.resolve(true);
  if (process.env.TEST_POSTGRES_STATE === 'skip') return Promise.resolve(false);
  checked ??= (async () => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.end();
      return true;
    } catch (error) {
      if (process.env.CI) {
        throw new Error(
          `PostgreSQL tests need a server under CI and none answers at ${new URL(POSTGRES_ADMIN_URL).host}: ${(error as Error).message}`,
        );
      }
      console.warn(
        `PostgreSQL tests skipped: no server at ${new URL(POSTGRES_ADMIN_URL).host}. To run them, start PostgreSQL ` +
          'or set BOTFLOW_TEST_POSTGRES_URL=postgres://user@host:5432/postgres',
      );
      return false;
    }
  })();
  return checked;
}

/** A new, empty database on the test server; `drop()` removes it (connections are ended first). */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `botflow_test_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
