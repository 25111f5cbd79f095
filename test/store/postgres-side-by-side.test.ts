// PostgreSQL commits planned batches that share no conversation side by side, and those that share one in
// the order they were planned (src/store/postgres/engine-store.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARTITIONS } from '../../src/store/partitions.ts';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/database.ts';
import { postgresStore } from '../../src/store/postgres/engine-store.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';
import { PgLeases } from '../../src/store/postgres/leases.ts';
import type { PlannedWrites } from '../../src/store/write-plan.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();

describe.skipIf(!up)('PostgreSQL batches side by side', () => {
  let db: { url: string; drop(): Promise<void> };
  let pg: PostgresDatabase;
  beforeAll(async () => {
    db = await migratedDatabase();
    pg = await openPostgres({ url: db.url });
    // This process ('m') holds every partition, as a single process does.
    const names = Array.from({ length: PARTITIONS }, (_, i) => `partition:${i}`);
    await new PgLeases(pg.pool).acquire('m', names, 600_000);
  });
  afterAll(async () => {
    await pg?.close();
    await db?.drop();
  });

  it('commits a batch of other conversations while one waits, and a later batch of the same after it', async () => {
    const appended = await new PgInbox(pg.pool).append(
      ['a', 'b', 'a'].map((who, i) => ({ dedupeKey: `u${i}`, conversationKey: `c:${who}`, payload: '{}' })),
    );
    const [a1, b1, a2] = appended.map((r) => r.id);
    const store = postgresStore(pg);
    const batch = (inboxId: number, key: string): PlannedWrites[] => [
      { inboxId, conversationKey: key, done: true, ops: [] },
    ];
    // Another transaction holds the first event's inbox row: its batch cannot finish until it lets go.
    const locker = await pg.pool.connect();
    await locker.query('BEGIN');
    await locker.query('SELECT 1 FROM inbox WHERE id = $1 FOR UPDATE', [a1]);
    const order: string[] = [];
    const first = Promise.resolve(store.apply(batch(a1!, 'c:a'), 'm', 1)).then(() => order.push('a1'));
    const other = Promise.resolve(store.apply(batch(b1!, 'c:b'), 'm', 1)).then(() => order.push('b1'));
    const same = Promise.resolve(store.apply(batch(a2!, 'c:a'), 'm', 1)).then(() => order.push('a2'));
    try {
      await other;
      expect(order).toEqual(['b1']);
      // The later event of c:a waits for the earlier one, although a connection is free.
      const { rows } = await pg.pool.query("SELECT id FROM inbox WHERE status = 'pending' ORDER BY id");
      expect(rows.map((r) => r.id)).toEqual([a1, a2]);
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    await Promise.all([first, same]);
    expect(order).toEqual(['b1', 'a1', 'a2']);
    const { rows } = await pg.pool.query("SELECT count(*)::int AS n FROM inbox WHERE status = 'done'");
    expect(rows[0].n).toBe(3);
  });

  it('reads pending rows leaving out those of batches in flight', async () => {
    const store = postgresStore(pg);
    const appended = await new PgInbox(pg.pool).append(
      ['x', 'y', 'z'].map((who, i) => ({ dedupeKey: `v${i}`, conversationKey: `c:${who}`, payload: '{}' })),
    );
    const ids = appended.map((r) => r.id);
    const read = await store.pending('all', 0, 2, new Set([ids[0]!]));
    expect(read.map((r) => r.id)).toEqual([ids[1], ids[2]]);
  });
});
