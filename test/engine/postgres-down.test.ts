/** An engine whose PostgreSQL database cannot be read at creation: the failure reaches start(), nothing else. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.ts';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { postgresStore } from '../../src/store/postgres/engine-store.ts';
import { migratedDatabase } from '../support/postgres.ts';
import { signupFlow } from './fixtures.ts';

describe('an engine over a PostgreSQL database that stopped answering', () => {
  let database: Awaited<ReturnType<typeof migratedDatabase>>;
  beforeAll(async () => {
    database = await migratedDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('says so when it starts, and leaves no unhandled rejection behind', async () => {
    const pg = await openPostgres({ url: database.url });
    await pg.close(); // the pool ends: every query fails
    const engine = createEngine({ store: postgresStore(pg), flows: [signupFlow] });
    // The engine's first query fails the way this one does; once it has and the event loop has turned, a
    // rejection nobody handles has been reported (vitest fails the run on it).
    await expect(pg.pool.query('SELECT 1')).rejects.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(engine.start()).rejects.toThrow();
  });
});
