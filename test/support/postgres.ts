/**
 * PostgreSQL for tests: a real server (never a mock). `BOTFLOW_TEST_POSTGRES_URL` names a database on it
 * that the tests may connect to and create databases from (default: the local server's `postgres`
 * database, trust authentication). Each test file gets a fresh database and drops it afterwards:
 * `migratedDatabase()` for a store, `freshDatabase()` (empty) for the tests of the migrations.
 *
 * Without a server, `npm test` skips only the PostgreSQL tests and says once how to enable them; under
 * CI (`CI=true`) a missing server is an error, so CI never passes by skipping.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { emptyForReuse, takeEmptied } from './postgres-reuse.ts';

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
export function freshDatabase(): Promise<TestDatabase> {
  return createDatabase();
}

/**
 * A database with botflow's migrations applied and nothing else, for tests that open it as a store
 * (`openPostgres`, which then finds nothing to apply): a copy of the run's migrated template
 * (`CREATE DATABASE … TEMPLATE`, see postgres-setup.ts), or one an earlier test of this worker dropped,
 * emptied back to the template's state (postgres-reuse.ts says how, and when a database is dropped for good
 * instead). Either is made in a fraction of the time 20-odd migrations take. Without a template (the e2e
 * project) it is an empty database, which `openPostgres` migrates as before. Tests of the migrations
 * themselves use `freshDatabase()`.
 */
export async function migratedDatabase(): Promise<TestDatabase> {
  const template = process.env.TEST_POSTGRES_TEMPLATE;
  const fingerprint = process.env.TEST_POSTGRES_FINGERPRINT;
  if (!template || !fingerprint) return createDatabase(template);
  // Named after the template, so that the global teardown finds the copies a worker still holds.
  const url = takeEmptied() ?? (await createDatabase(template, `${template}_`)).url;
  let dropped = false;
  return {
    url,
    async drop() {
      if (dropped) return;
      dropped = true;
      if (!(await emptyForReuse(url, fingerprint))) await dropDatabase(url);
    },
  };
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function createDatabase(template?: string, prefix = 'botflow_test_'): Promise<TestDatabase> {
  const name = `${prefix}${randomBytes(5).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => dropDatabase(url.toString()) };
}

/** Drops the database at `url`, ending its connections first. */
export function dropDatabase(url: string): Promise<void> {
  return adminQuery(`DROP DATABASE IF EXISTS ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
}

/** Runs one statement on the admin database, on a connection of its own. */
export async function adminQuery(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}
