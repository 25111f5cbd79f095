// The PostgreSQL store on a real server: migrations, the inbox, one-transaction batches with the revision
// compare-and-swap and the lease fence, leases and their takeover, and how partitions are shared.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionsFor } from '../../src/engine/lane/ownership.ts';
import { applyBatch, LeaseLostError } from '../../src/store/postgres/commit.ts';
import {
  openPostgres,
  PARTITIONS,
  type PostgresDatabase,
  partitionOf,
  redactUrl,
} from '../../src/store/postgres/database.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';
import { PgLeases } from '../../src/store/postgres/leases.ts';
import { PgOutbox } from '../../src/store/postgres/outbox.ts';
import { pgSession } from '../../src/store/postgres/sessions.ts';
import { applyTimerGrace } from '../../src/store/postgres/timers.ts';
import type { SessionRow } from '../../src/store/sessions.ts';
import type { PlannedWrites, WriteOp } from '../../src/store/write-plan.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();

const session = (key: string, revision: number): SessionRow => ({
  conversationKey: key,
  flowId: 'f',
  flowVersion: 'v1',
  status: 'active',
  stateValue: '"a"',
  snapshot: '{}',
  revision,
  stepInstance: revision,
  startedRevision: 1,
  chatId: 7,
  userId: 8,
  locale: 'en',
  startedAt: 1,
  updatedAt: 2,
});

describe.skipIf(!up)('PostgreSQL store', () => {
  let db: { url: string; drop(): Promise<void> };
  let pg: PostgresDatabase;

  beforeAll(async () => {
    db = await freshDatabase();
    // Three processes starting at once apply each migration once.
    const opened = await Promise.all([1, 2, 3].map(() => openPostgres({ url: db.url })));
    pg = opened[0]!;
    await Promise.all(opened.slice(1).map((other) => other.close()));
  });
  afterAll(async () => {
    await pg?.close();
    await db?.drop();
  });

  it('records each migration once, and opening again applies nothing', async () => {
    const { rows } = await pg.pool.query('SELECT name FROM schema_migrations');
    expect(rows.map((r) => r.name)).toEqual([
      '001_init.sql',
      '002_task_cancellation.sql',
      '003_step_log_failures.sql',
      '004_write_plan_conformance.sql',
      '005_batch_cost.sql',
      '006_campaigns.sql',
      '007_unrecognised.sql',
      '008_handoff_queue.sql',
      '009_batch_cancel_probe.sql',
      '010_interrupt_keeps_answers.sql',
      '011_channels_per_schema.sql',
    ]);
    const applied: string[] = [];
    const again = await openPostgres({ url: db.url, logger: { info: (d) => applied.push(d.migration) } });
    await again.close();
    expect(applied).toEqual([]);
  });

  it('never shows the password of a URL, also when it cannot connect', async () => {
    expect(redactUrl('postgres://bot:s3cret@db.example:5432/bot')).toBe(
      'postgres://bot:***@db.example:5432/bot',
    );
    const error = await openPostgres({ url: 'postgres://bot:s3cret@127.0.0.1:1/bot' }).catch((e: Error) => e);
    expect(String(error)).toMatch(
      /cannot connect to PostgreSQL at postgres:\/\/bot:\*\*\*@127\.0\.0\.1:1\/bot/,
    );
    expect(String(error)).not.toContain('s3cret');
  });

  it('appends updates once, whoever delivers them again, and reads them by partition', async () => {
    const inbox = new PgInbox(pg.pool);
    const entry = (key: string, conversation: string) => ({
      dedupeKey: key,
      conversationKey: conversation,
      payload: `{"k":"${key}"}`,
    });
    const first = await inbox.append([entry('u1', 'c:1'), entry('u2', 'c:2'), entry('u1', 'c:1')]);
    expect(first.map((r) => r.inserted)).toEqual([true, true, false]);
    const second = await inbox.append([entry('u2', 'c:2'), entry('u3', 'c:1')]);
    expect(second.map((r) => r.inserted)).toEqual([false, true]);
    const mine = await inbox.pending([partitionOf('c:1')], 10);
    expect(mine.map((r) => JSON.parse(r.payload).k)).toEqual(['u1', 'u3']);
    expect(mine.every((r) => r.partition === partitionOf('c:1'))).toBe(true);
  });

  it('commits a batch in one transaction; a session that moved on holds its event, a bad write fails only its own', async () => {
    const inbox = new PgInbox(pg.pool);
    const [a, b, c] = await inbox.append(
      ['x1', 'x2', 'x3'].map((k) => ({ dedupeKey: k, conversationKey: `cas:${k}`, payload: '{}' })),
    );
    const first = await applyBatch(
      pg.pool,
      null,
      [
        {
          inboxId: a!.id!,
          conversationKey: 'cas:x1',
          done: true,
          ops: [{ kind: 'session', row: session('cas:x1', 1), expected: undefined, sameShape: false }],
        },
      ],
      10,
    );
    expect(first).toEqual([{ status: 'applied', dropped: 0 }]);
    expect((await pgSession(pg.pool, 'cas:x1'))?.revision).toBe(1);
    const results = await applyBatch(
      pg.pool,
      null,
      [
        // planned from revision 0 while the stored session is at 1: held, nothing written
        {
          inboxId: b!.id!,
          conversationKey: 'cas:x1',
          done: true,
          ops: [{ kind: 'session', row: session('cas:x1', 2), expected: 0, sameShape: true }],
        },
        {
          inboxId: c!.id!,
          conversationKey: 'cas:x3',
          done: true,
          ops: [{ kind: 'nonsense' } as unknown as WriteOp],
        },
      ],
      11,
    );
    expect(results.map((r) => r.status)).toEqual(['held', 'failed']);
    expect((await pgSession(pg.pool, 'cas:x1'))?.revision).toBe(1);
    const { rows } = await pg.pool.query(
      'SELECT dedupe_key, status FROM inbox WHERE dedupe_key LIKE $1 ORDER BY id',
      ['x%'],
    );
    expect(rows).toEqual([
      { dedupe_key: 'x1', status: 'done' },
      { dedupe_key: 'x2', status: 'pending' },
      { dedupe_key: 'x3', status: 'failed' },
    ]);
  });

  it('writes nothing for a process that does not hold the partitions of the batch', async () => {
    const [row] = await new PgInbox(pg.pool).append([
      { dedupeKey: 'fence', conversationKey: 'fence:1', payload: '{}' },
    ]);
    const batch: PlannedWrites[] = [
      {
        inboxId: row!.id!,
        conversationKey: 'fence:1',
        done: true,
        ops: [{ kind: 'session', row: session('fence:1', 1), expected: undefined, sameShape: false }],
      },
    ];
    await expect(applyBatch(pg.pool, 'nobody', batch, 1)).rejects.toBeInstanceOf(LeaseLostError);
    expect(await pgSession(pg.pool, 'fence:1')).toBeUndefined();
    const leases = new PgLeases(pg.pool);
    await leases.acquire('me', [`partition:${partitionOf('fence:1')}`], 5000);
    expect((await applyBatch(pg.pool, 'me', batch, 1))[0]!.status).toBe('applied');
  });

  it('lets a lease be taken over only once it lapsed, counting owners', async () => {
    const leases = new PgLeases(pg.pool);
    expect(await leases.acquire('a', ['role:x'], 300)).toEqual(['role:x']);
    expect(await leases.acquire('b', ['role:x'], 300)).toEqual([]);
    expect(await leases.acquire('a', ['role:x'], 300)).toEqual(['role:x']); // renewed
    const held = (await leases.all()).find((l) => l.name === 'role:x')!;
    await eventually('the lease to lapse in database time', async () => {
      const { rows } = await pg.pool.query<{ now: string }>('SELECT botflow_now_ms() AS now');
      return Number(rows[0]!.now) > held.expiresAt;
    });
    expect(await leases.acquire('b', ['role:x'], 300)).toEqual(['role:x']);
    const lease = (await leases.all()).find((l) => l.name === 'role:x')!;
    expect(lease).toMatchObject({ owner: 'b', epoch: 2 });
    await leases.release('b', ['role:x']);
    expect(await leases.acquire('a', ['role:x'], 300)).toEqual(['role:x']);
  });

  it('leaves a call in flight with a live process that lost the dispatcher lease; takes it over once that process is gone', async () => {
    const leases = new PgLeases(pg.pool);
    const outbox = new PgOutbox(pg.pool);
    await pg.pool.query(
      'INSERT INTO outbox (partition, conversation_key, revision, seq, order_key, chat_id, kind, op, args, ' +
        "priority, idempotency_key, created_at) SELECT 0, 'ob:1', 1, s, 'chat:42', 42, 'api', 'sendMessage', " +
        "'{}', 'interactive', 'ob:1:' || s, 1 FROM generate_series(1, 2) s",
    );
    await leases.heartbeat('a', 300, {});
    await leases.acquire('a', ['dispatcher'], 5000);
    expect(await outbox.claimHeads('b', [], 10, 1)).toEqual([]); // not the dispatcher: claims nothing
    const [first] = await outbox.claimHeads('a', [], 10, 1);
    expect(first).toMatchObject({
      orderKey: 'chat:42',
      seq: 1,
      attempts: 1,
      status: 'sending',
      sentAt: null,
    });
    await outbox.markSent(first!, 1); // handed to the transport: from here a resend is in doubt
    await leases.release('a', ['dispatcher']);
    await leases.heartbeat('b', 5000, {});
    await leases.acquire('b', ['dispatcher'], 5000);
    // 'a' lives on and may still be sending it: the head stays its own, and the call after it waits.
    expect(await outbox.claimHeads('b', [], 10, 2)).toEqual([]);
    await eventually("'a' to miss its heartbeat: gone", async () =>
      (await leases.liveMembers()).every((m) => m.id !== 'a'),
    );
    const [again] = await outbox.claimHeads('b', [], 10, 3);
    expect(again).toMatchObject({ id: first!.id, attempts: 2, sentAt: 1 });
    // Issue 28: given back unsent, it keeps the first send time ('a' may have sent it), and so does the next claim.
    await outbox.release(again!);
    const [third] = await outbox.claimHeads('b', [], 10, 4);
    expect(third).toMatchObject({ id: first!.id, attempts: 2, sentAt: 1 });
  });

  it('applies the grace rule to timers of partitions taken after downtime: a little late fire, later spread, very old expire', async () => {
    const now = 10 * 3_600_000;
    const at = (lateMs: number, name: string) =>
      pg.pool.query(
        'INSERT INTO timers (partition, conversation_key, name, due_at, fire_at, step_instance, armed_revision, ' +
          "armed_at) VALUES (9, 'grace:' || $2, $2, $1, $1, 1, 1, 0)",
        [now - lateMs, name],
      );
    await at(10_000, 'on-time');
    await at(300_000, 'late-1');
    await at(200_000, 'late-2');
    await at(7 * 3_600_000, 'ancient');
    const report = await applyTimerGrace(pg.pool, [9], now, {
      toleranceMs: 60_000,
      maxLateMs: 6 * 3_600_000,
      perSecond: 10,
    });
    expect(report).toEqual({ postponed: 2, expired: 1 });
    const { rows } = await pg.pool.query(
      "SELECT name, status, fire_at - $1 AS due_in FROM timers WHERE conversation_key LIKE 'grace:%' ORDER BY name",
      [now],
    );
    expect(rows).toEqual([
      { name: 'ancient', status: 'expired', due_in: -7 * 3_600_000 },
      { name: 'late-1', status: 'armed', due_in: 0 },
      { name: 'late-2', status: 'armed', due_in: 100 },
      { name: 'on-time', status: 'armed', due_in: -10_000 },
    ]);
  });

  it('gives every partition to exactly one member, and moves few when one joins', () => {
    const three = ['p1', 'p2', 'p3'];
    const shares = three.map((m) => partitionsFor(m, three));
    expect(shares.flat().sort((x, y) => x - y)).toEqual([...Array(PARTITIONS).keys()]);
    for (const share of shares) expect(share.length).toBeGreaterThan(PARTITIONS / 6);
    const four = [...three, 'p4'];
    const moved = three.reduce(
      (n, m, i) => n + shares[i]!.filter((p) => !partitionsFor(m, four).includes(p)).length,
      0,
    );
    expect(moved).toBe(partitionsFor('p4', four).length); // only what the newcomer takes
    expect(moved).toBeLessThan(PARTITIONS / 2);
  });
});
