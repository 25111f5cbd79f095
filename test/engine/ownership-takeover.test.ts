// Whom the dispatcher role is taken from, on PostgreSQL (issue 36): from a process dead for seconds (its
// membership lapsed with its lease) the new dispatcher needs no pause; from one still alive (only its lease
// lapsed: a slow database) it must pause and wait for what that one still sends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ownership } from '../../src/engine/lane/ownership.ts';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/database.ts';
import { PgLeases } from '../../src/store/postgres/leases.ts';
import { eventually } from '../support/eventually.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();

describe.skipIf(!up)('taking the dispatcher role', () => {
  let db: { url: string; drop(): Promise<void> };
  let pg: PostgresDatabase;
  beforeAll(async () => {
    db = await migratedDatabase();
    pg = await openPostgres({ url: db.url, max: 2 });
  });
  afterAll(async () => {
    await pg?.close();
    await db?.drop();
  });

  it('says whether it was taken from a process that is no longer alive', async () => {
    const leases = new PgLeases(pg.pool);
    // x holds the role and dies: membership and lease lapse together.
    await leases.heartbeat('x', 200, {});
    expect(await leases.acquire('x', ['dispatcher'], 200)).toEqual(['dispatcher']);
    const y = new Ownership({ leases, member: 'y', leaseMs: 3000 });
    await eventually('the role taken from dead x', async () => {
      const { role, fromDead } = await y.tick();
      return role.dispatcher && fromDead;
    });

    // y's lease lapses while y is alive (heartbeats on): z takes the role from a live process.
    await leases.heartbeat('y', 60_000, {});
    await pg.pool.query("UPDATE leases SET expires_at = 0 WHERE name = 'dispatcher'");
    const z = new Ownership({ leases, member: 'z', leaseMs: 3000 });
    const taken = await z.tick();
    expect(taken.role.dispatcher).toBe(true);
    expect(taken.fromDead).toBe(false);
    // Renewing it is not taking it.
    expect((await z.tick()).fromDead).toBe(false);
  });
});
