// The side panel reads a conversation (session, armed timers, calls, tasks) as one snapshot: a step that
// commits between its reads lands in all of them or in none, so a step's timers never show beside the
// session from before that step (src/store/postgres/support.ts, src/store/sqlite/support.ts).
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/database.ts';
import { pgSupport } from '../../src/store/postgres/support.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();

const placed = {
  conversationKey: 'u:1',
  flowId: 'signup',
  flowVersion: 'v1',
  stateValue: '"confirm"',
  snapshot: '{"value":"confirm","context":{"vars":{}}}',
  step: 'confirm',
  chatId: 1,
  userId: 1,
  locale: null,
};

/** A pool whose reads of the session are followed, at once, by another connection's commit of a timer. */
function committingAfterSessionRead(pool: pg.Pool, commit: () => Promise<void>): pg.Pool {
  const after = async <T>(sql: unknown, result: T): Promise<T> => {
    if (String(sql).includes('FROM sessions')) await commit();
    return result;
  };
  const wrapQuery =
    (target: { query: (...args: never[]) => Promise<unknown> }) =>
    async (...args: never[]) =>
      after(args[0], await target.query(...args));
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'query') return wrapQuery(target);
      if (prop === 'connect')
        return async () => {
          const client = await target.connect();
          return new Proxy(client, {
            get: (c, p, r) => (p === 'query' ? wrapQuery(c) : Reflect.get(c, p, r)),
          });
        };
      return Reflect.get(target, prop, receiver);
    },
  });
}

describe.skipIf(!up)("a conversation's rows as the side panel reads them, on PostgreSQL", () => {
  let db: { url: string; drop(): Promise<void> };
  let pgdb: PostgresDatabase;
  beforeAll(async () => {
    db = await migratedDatabase();
    pgdb = await openPostgres({ url: db.url });
  });
  afterAll(async () => {
    await pgdb?.close();
    await db?.drop();
  });

  it('are one snapshot: a timer committed between the reads is not shown beside the older session', async () => {
    await pgSupport(pgdb.pool).placeSession(placed, 1000);
    let committed = false;
    const commit = async () => {
      if (committed) return;
      committed = true;
      await pgdb.pool.query(
        `INSERT INTO timers (partition, conversation_key, name, due_at, fire_at, step_instance, armed_revision, armed_at)
         VALUES (0, 'u:1', 'confirm:remind:0', 9000, 9000, 2, 2, 2000)`,
      );
    };
    const support = pgSupport(committingAfterSessionRead(pgdb.pool, commit));
    const seen = await support.conversation('u:1', 10);
    expect(committed).toBe(true);
    expect(seen?.session.revision).toBe(1);
    expect(seen?.timers).toEqual([]);
    // The next read sees the commit.
    expect((await pgSupport(pgdb.pool).conversation('u:1', 10))?.timers.map((t) => t.name)).toEqual([
      'confirm:remind:0',
    ]);
  });
});
