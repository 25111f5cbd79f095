// A SIGKILLed process is seen dead at once, not after its lease lapses (issue 36: no dispatcher for 3 to
// 4 s after every kill). Each process tells its listening connection's session with its heartbeat; when
// that session ends (the process's sockets close with it) the others take its partitions, the dispatcher
// role and its calls in flight. The leases here last a minute: a takeover within the test cannot be a lapse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ownership } from '../../src/engine/lane/ownership.ts';
import { openPostgres, type PostgresDatabase, pgListen } from '../../src/store/postgres/database.ts';
import { PgLeases } from '../../src/store/postgres/leases.ts';
import { PgOutbox } from '../../src/store/postgres/outbox.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();
const MINUTE = 60_000;

describe.skipIf(!up)('a process whose session ended', () => {
  let db: { url: string; drop(): Promise<void> };
  let pg: PostgresDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    pg = await openPostgres({ url: db.url, max: 3 });
  });
  afterAll(async () => {
    await pg?.close();
    await db?.drop();
  });

  it('loses its leases and its calls in flight at once; the new dispatcher pauses (its last second counts)', async () => {
    const leases = new PgLeases(pg.pool);
    const outbox = new PgOutbox(pg.pool);
    const listener = await pgListen(
      pg,
      ['botflow_leases'],
      () => {},
      () => {},
    );
    expect(listener?.session).toEqual(expect.any(Number));
    const x = new Ownership({ leases, member: 'x', leaseMs: MINUTE, session: () => listener!.session });
    expect((await x.tick()).role).toMatchObject({ dispatcher: true, partitions: expect.any(Array) });
    await pg.pool.query(
      'INSERT INTO outbox (partition, conversation_key, revision, seq, order_key, chat_id, kind, op, args, ' +
        "priority, idempotency_key, created_at) VALUES (0, 'g:1', 1, 1, 'chat:7', 7, 'api', 'sendMessage', " +
        "'{}', 'interactive', 'g:1:1', 1)",
    );
    const [inFlight] = await outbox.claimHeads('x', [], 10, 1);
    expect(inFlight).toMatchObject({ status: 'sending', attempts: 1 });

    // While x's session lives, y takes nothing of x's and sees x among the members.
    const y = new Ownership({ leases, member: 'y', leaseMs: MINUTE });
    const alive = await y.tick();
    expect(alive.role.dispatcher).toBe(false);
    expect(alive.role.members).toBe(2);
    expect(await leases.goneHolding('y')).toBe(false);
    expect(await outbox.othersSending('y')).toBe(1);

    // x dies: its connection closes with it.
    await listener!.close();
    await eventually('x to be seen gone', () => leases.goneHolding('y'));
    const taken = await y.tick();
    expect(taken.role).toMatchObject({ dispatcher: true, members: 1 });
    expect(taken.role.partitions).toHaveLength(64);
    // Dead moments ago, not for seconds: its calls of the last second may still count (the pause stays).
    expect(taken.fromDead).toBe(false);
    expect(await leases.goneHolding('y')).toBe(false);
    // Its call in flight is no longer its own: the new dispatcher does not wait for it and claims it again.
    expect(await outbox.othersSending('y')).toBe(0);
    const [again] = await outbox.claimHeads('y', [], 10, 2);
    expect(again).toMatchObject({ id: inFlight!.id, attempts: 2 });
  });
});
