// The one dispatcher over each outbox adapter (SQLite in one process, PostgreSQL shared by several): the
// same behaviour, written once. Order per order key, results back as events, failures and releases,
// resends through the read-back after a dispatcher stopped, stop and idle, the handover pause on the
// clock, and issue 28: a message is never sent twice after two handovers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/errors.ts';
import { DeadLetterError, type Job, PRIORITIES } from '../../src/client/scheduler/types.ts';
import { Dispatcher, type DispatchOutcome } from '../../src/dispatch/dispatcher.ts';
import { openDatabase } from '../../src/store/database.ts';
import type { Clock } from '../../src/store/ports/clock.ts';
import type { NewOutboxRow, OutboxPort, OutboxRow } from '../../src/store/ports/outbox.ts';
import { openPostgres, type PostgresDatabase, partitionOf } from '../../src/store/postgres/database.ts';
import { PgLeases } from '../../src/store/postgres/leases.ts';
import { PgOutbox } from '../../src/store/postgres/outbox.ts';
import { SqliteOutbox } from '../../src/store/sqlite/outbox-port.ts';
import { eventually } from '../support/eventually.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const pgUp = await postgresAvailable();

/** A virtual clock: time moves only when the test says so; timers fire on `advance`. */
class TestClock implements Clock {
  time = 1_000_000;
  #timers: { at: number; fn: () => void }[] = [];
  now = () => this.time;
  setTimer(fn: () => void, ms: number) {
    const timer = { at: this.time + ms, fn };
    this.#timers.push(timer);
    return timer;
  }
  clearTimer(handle: unknown) {
    this.#timers = this.#timers.filter((t) => t !== handle);
  }
  advance(ms: number): void {
    this.time += ms;
    const due = this.#timers.filter((t) => t.at <= this.time);
    this.#timers = this.#timers.filter((t) => t.at > this.time);
    for (const t of due) t.fn();
  }
}

interface StoredMessage {
  sender: { is_bot: boolean };
  timestamp: number;
  body: { text: string; mid: string };
}

/**
 * The platform and the scheduler in front of it: messages are stored per chat (read back latest first).
 * `mode`: `ok` answers; `hold` delivers and never answers (the dispatcher died with the call in flight);
 * `queue` keeps every call queued, unsent, until `close()` refuses them (a scheduler stopping).
 */
class Platform {
  readonly chats = new Map<number, StoredMessage[]>();
  readonly calls: { op: string; chatId?: number; text?: unknown }[] = [];
  mode: 'ok' | 'hold' | 'queue' = 'ok';
  /** Calls queued in `queue` mode, to refuse at `close()`. */
  readonly queued: (() => void)[] = [];
  /** Modes for the next sends, in turn, before `mode` applies again. */
  readonly next: ('ok' | 'hold')[] = [];
  /** Calls waiting in `hold`, with what to answer. */
  readonly held: (() => void)[] = [];
  failWith: Error | undefined;
  #mids = 0;

  constructor(private readonly clock: TestClock) {}

  gateway = {
    submit: async (job: Job): Promise<unknown> => {
      const args = job.args as Record<string, unknown>;
      if (this.mode === 'queue') {
        await new Promise<void>((resolve) => this.queued.push(resolve));
        throw new DeadLetterError('closed', job.op, job.chatId, undefined, 'the scheduler stopped');
      }
      await job.onStart?.(); // as the scheduler does, before the request goes out
      this.calls.push({ op: job.op, chatId: job.chatId, text: args.text });
      if (this.failWith) throw this.failWith;
      if (job.op === 'getMessages') return { messages: [...this.messages(job.chatId!)].reverse() };
      if (job.op !== 'sendMessage') return { success: true };
      const message = {
        sender: { is_bot: true },
        timestamp: this.clock.now(),
        body: { text: String(args.text), mid: `m${++this.#mids}` },
      };
      this.messages(job.chatId!).push(message);
      if ((this.next.shift() ?? this.mode) === 'hold')
        await new Promise<void>((resolve) => this.held.push(resolve));
      return { message };
    },
  };

  /** The scheduler closes: every queued call is refused, never sent. */
  close(): void {
    for (const refuse of this.queued.splice(0)) refuse();
  }

  messages(chatId: number): StoredMessage[] {
    if (!this.chats.has(chatId)) this.chats.set(chatId, []);
    return this.chats.get(chatId)!;
  }

  texts(chatId: number): string[] {
    return this.messages(chatId).map((m) => m.body.text);
  }
}

/** One database behind the port, with what the tests read and arrange around the dispatcher. */
interface Store {
  outbox: OutboxPort;
  insert(rows: NewOutboxRow[]): Promise<number[]>;
  row(id: number): Promise<OutboxRow>;
  /** The `effect_result` events in the inbox: [conversation, payload]. */
  effectResults(): Promise<[string, string][]>;
  /** Makes `member` the dispatcher (PostgreSQL: it takes the lease; the previous holder is gone). */
  become(member: string): Promise<void>;
  /** Records `member` as a live process for a minute (PostgreSQL's `members`; SQLite has one process). */
  alive(member: string): Promise<void>;
  close(): Promise<void>;
}

interface Backend {
  name: string;
  skip: boolean;
  setUp?(): Promise<void>;
  tearDown?(): Promise<void>;
  open(): Promise<Store>;
}

const sqlite: Backend = {
  name: 'SQLite',
  skip: false,
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-dispatch-'));
    const db = openDatabase({ path: join(dir, 'bot.db') });
    const insert = db.prepare(
      'INSERT INTO outbox (conversation_key, revision, seq, order_key, chat_id, kind, op, args, ref, priority, ' +
        'idempotency_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    return {
      outbox: new SqliteOutbox(db),
      async insert(rows) {
        return rows.map((r) =>
          Number(
            insert.run(
              r.conversationKey,
              r.revision,
              r.seq,
              r.orderKey,
              r.chatId,
              r.kind,
              r.op,
              r.args,
              r.ref,
              r.priority,
              `${r.conversationKey}:${r.revision}:${r.seq}`,
              r.createdAt,
            ).lastInsertRowid,
          ),
        );
      },
      async row(id) {
        return db
          .prepare(
            'SELECT id, status, attempts, result, error, sent_at AS sentAt, finished_at AS finishedAt FROM outbox WHERE id = ?',
          )
          .get(id) as OutboxRow;
      },
      async effectResults() {
        return (
          db
            .prepare(
              "SELECT conversation_key AS k, payload FROM inbox WHERE kind = 'effect_result' ORDER BY id",
            )
            .all() as { k: string; payload: string }[]
        ).map((e) => [e.k, e.payload]);
      },
      async become() {},
      async alive() {},
      async close() {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

let pgDb: { url: string; drop(): Promise<void> } | undefined;
let pg: PostgresDatabase | undefined;
const postgres: Backend = {
  name: 'PostgreSQL',
  skip: !pgUp,
  async setUp() {
    pgDb = await migratedDatabase();
    pg = await openPostgres({ url: pgDb.url });
  },
  async tearDown() {
    await pg?.close();
    await pgDb?.drop();
  },
  async open() {
    const pool = pg!.pool;
    await pool.query('TRUNCATE outbox, inbox, leases, members');
    const leases = new PgLeases(pool);
    let holder: string | undefined;
    return {
      outbox: new PgOutbox(pool),
      async insert(rows) {
        const ids: number[] = [];
        for (const r of rows) {
          const { rows: out } = await pool.query<{ id: number }>(
            'INSERT INTO outbox (partition, conversation_key, revision, seq, order_key, chat_id, kind, op, args, ' +
              'ref, priority, idempotency_key, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, ' +
              '$12, $13) RETURNING id',
            [
              partitionOf(r.conversationKey),
              r.conversationKey,
              r.revision,
              r.seq,
              r.orderKey,
              r.chatId,
              r.kind,
              r.op,
              r.args,
              r.ref,
              r.priority,
              `${r.conversationKey}:${r.revision}:${r.seq}`,
              r.createdAt,
            ],
          );
          ids.push(out[0]!.id);
        }
        return ids;
      },
      async row(id) {
        const { rows } = await pool.query<OutboxRow>(
          'SELECT id, status, attempts, result, error, sent_at AS "sentAt", finished_at AS "finishedAt" FROM outbox ' +
            'WHERE id = $1',
          [id],
        );
        return rows[0]!;
      },
      async effectResults() {
        const { rows } = await pool.query<{ k: string; payload: string }>(
          "SELECT conversation_key AS k, payload FROM inbox WHERE kind = 'effect_result' ORDER BY id",
        );
        return rows.map((e) => [e.k, e.payload]);
      },
      async become(member) {
        if (holder) await leases.release(holder, ['dispatcher']);
        expect(await leases.acquire(member, ['dispatcher'], 60_000)).toEqual(['dispatcher']);
        holder = member;
      },
      async alive(member) {
        await leases.heartbeat(member, 60_000, {});
      },
      async close() {},
    };
  },
};

/** Lets queued callbacks run (a few turns of the event loop). */
const turns = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

const message = (
  chatId: number,
  seq: number,
  text: string,
  extra: Partial<NewOutboxRow> = {},
): NewOutboxRow => ({
  conversationKey: `u:${chatId}`,
  revision: 1,
  seq,
  orderKey: `chat:${chatId}`,
  chatId,
  kind: 'api',
  op: 'sendMessage',
  args: JSON.stringify({ chat_id: chatId, text }),
  ref: null,
  priority: 'reply',
  createdAt: 1,
  ...extra,
});

describe.each([sqlite, postgres])('the dispatcher over $name', (backend) => {
  let store: Store;
  let clock: TestClock;
  let platform: Platform;
  const dispatchers: Dispatcher[] = [];
  const outcomes: DispatchOutcome[] = [];
  let results = 0;

  const dispatcher = (member: string, extra: { handoverPauseMs?: number; outbox?: OutboxPort } = {}) => {
    const d = new Dispatcher({
      outbox: store.outbox,
      member,
      gateway: platform.gateway,
      clock,
      onResult: () => results++,
      onOutcome: (o) => outcomes.push(o),
      ...extra,
    });
    dispatchers.push(d);
    return d;
  };

  beforeAll(async () => {
    if (!backend.skip) await backend.setUp?.();
  });
  afterAll(async () => {
    if (!backend.skip) await backend.tearDown?.();
  });
  beforeEach(async (context) => {
    if (backend.skip) context.skip();
    store = await backend.open();
    clock = new TestClock();
    platform = new Platform(clock);
    outcomes.length = 0;
    results = 0;
    await store.become('a');
  });
  afterEach(async () => {
    if (backend.skip) return;
    // Calls still held never answer: their dispatchers "died".
    for (const d of dispatchers.splice(0)) await d.stop(0);
    await store.close();
  });

  it('claims heads in the one priority order: a reply, then a callback answer, typing, a read-back, campaigns last (issue 35)', async () => {
    const [bulk1, bulk2, readback, typing, callback, reply] = await store.insert([
      message(1, 1, 'campaign one', { priority: 'bulk' }),
      message(2, 1, 'campaign two', { priority: 'bulk' }),
      message(3, 1, 'read', { priority: 'readback', op: 'getMessages' }),
      message(4, 1, 'typing', { priority: 'typing', op: 'sendAction' }),
      message(5, 1, 'pressed', { priority: 'callback', op: 'answerCallback' }),
      message(6, 1, 'hello', { priority: 'reply' }),
    ]);
    const claimed = await store.outbox.claimHeads('a', [], 4, clock.now(), PRIORITIES);
    expect(claimed.map((r) => r.id)).toEqual([reply, callback, typing, readback]);
    const busy = claimed.map((r) => r.orderKey); // in flight: the dispatcher names them busy
    const rest = await store.outbox.claimHeads('a', busy, 10, clock.now(), PRIORITIES);
    expect(rest.map((r) => r.id)).toEqual([bulk1, bulk2]);
  });

  it('sends one call at a time per order key, in commit order, many keys at once; asked-for results come back as events', async () => {
    const [first, second, other] = await store.insert([
      message(1, 1, 'one', { ref: 'greeting' }),
      message(1, 2, 'two'),
      message(2, 1, 'elsewhere'),
    ]);
    platform.mode = 'hold';
    const d = dispatcher('a');
    d.start();
    await eventually('both chats in flight', () => platform.calls.length === 2);
    // The second message of chat 1 waits for the first.
    expect(platform.calls.map((c) => c.text)).toEqual(['one', 'elsewhere']);
    expect(d.inFlight).toBe(2);
    platform.mode = 'ok';
    for (const resolve of platform.held.splice(0)) resolve();
    await eventually('all three sent', () => outcomes.length === 3);
    await d.idle();
    expect(platform.texts(1)).toEqual(['one', 'two']);
    expect(
      [...outcomes].sort((x, y) => x.outboxId - y.outboxId).map((o) => [o.outboxId, o.status, o.attempts]),
    ).toEqual([
      [first, 'done', 1],
      [second, 'done', 1],
      [other, 'done', 1],
    ]);
    // In commit order within the chat.
    expect(outcomes.map((o) => o.outboxId).filter((id) => id !== other)).toEqual([first, second]);
    expect(results).toBe(1); // only the row with a `ref`
    const events = await store.effectResults();
    expect(events).toHaveLength(1);
    expect(events[0]![0]).toBe('u:1');
    expect(JSON.parse(events[0]![1])).toMatchObject({ outboxId: first, ref: 'greeting', ok: true });
    expect(await store.row(first!)).toMatchObject({ status: 'done', attempts: 1, sentAt: clock.time });
  });

  it('settles a call that failed for good with its reason, and gives back one the scheduler never sent', async () => {
    const [failing] = await store.insert([message(1, 1, 'refused', { ref: 'r' })]);
    platform.failWith = new ApiError({
      operation: 'sendMessage',
      status: 403,
      code: 'chat.denied',
      platformMessage: 'the person blocked the bot',
      body: '{}',
    });
    const d = dispatcher('a');
    d.start();
    await eventually('the failure settled', () => outcomes.length === 1);
    expect(outcomes[0]).toMatchObject({
      outboxId: failing,
      status: 'failed',
      error: { code: 'chat.denied' },
    });
    expect(await store.row(failing!)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(JSON.parse((await store.effectResults())[0]![1])).toMatchObject({ ok: false });

    platform.failWith = undefined;
    platform.mode = 'queue';
    const [unsent] = await store.insert([message(2, 1, 'later')]);
    d.wake();
    await eventually('the call queued', () => platform.queued.length === 1);
    const stopped = d.stop(60_000);
    platform.close();
    await stopped;
    expect(await store.row(unsent!)).toMatchObject({ status: 'pending', attempts: 0, sentAt: null });
    expect(outcomes).toHaveLength(1);
  });

  it('resends what a stopped dispatcher left in flight: the read-back takes the copy it delivered, never an earlier call’s', async () => {
    const [earlier, inFlight] = await store.insert([message(1, 1, 'Hello'), message(1, 2, 'Hello')]);
    platform.next.push('ok', 'hold');
    const first = dispatcher('a');
    first.start();
    await eventually('the first Hello settled', () => outcomes.length === 1);
    await eventually('the second Hello delivered, unanswered', () => platform.held.length === 1);
    await first.stop(0); // "dies" with the call in flight
    expect(await store.row(inFlight!)).toMatchObject({ status: 'sending', attempts: 1 });

    clock.advance(2_000);
    await store.become('b');
    const second = dispatcher('b');
    second.start();
    // Issue 36: a's request may still be on its way (a died moments ago): no read-back before it arrived.
    await eventually('the call claimed again', async () => (await store.row(inFlight!)).attempts === 2);
    await turns();
    expect(platform.calls.filter((c) => c.op === 'getMessages')).toEqual([]);
    clock.advance(1_000);
    await eventually('the resend settled', () => outcomes.length === 2);
    // Read back first; the delivered copy (m2) is taken, the earlier call's identical m1 is not.
    expect(platform.calls.slice(-1)).toEqual([{ op: 'getMessages', chatId: 1, text: undefined }]);
    expect(platform.texts(1)).toEqual(['Hello', 'Hello']);
    expect(outcomes[1]).toMatchObject({ outboxId: inFlight, status: 'done', attempts: 2 });
    expect(JSON.parse((await store.row(inFlight!)).result!)).toEqual({ message: { body: { mid: 'm2' } } });
    expect(await store.row(earlier!)).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('issue 36: resends without a read-back a call its dead dispatcher claimed but never handed to the transport', async (context) => {
    if (backend.name !== 'PostgreSQL') return context.skip(); // SQLite: a claim counts as sent (no markSent)
    const [id] = await store.insert([message(1, 1, 'Welcome')]);
    platform.mode = 'queue'; // waits in a's scheduler behind the limits: never goes out
    const a = dispatcher('a');
    a.start();
    await eventually('the call queued in a', () => platform.queued.length === 1);
    await a.stop(0); // a "dies" with the call claimed
    expect(await store.row(id!)).toMatchObject({ status: 'sending', attempts: 1, sentAt: null });

    platform.mode = 'ok';
    await store.become('b');
    const b = dispatcher('b');
    b.start();
    await eventually('the resend settled', () => outcomes.length === 1);
    // Nothing to read back: it never left a.
    expect(platform.calls).toEqual([{ op: 'sendMessage', chatId: 1, text: 'Welcome' }]);
    expect(await store.row(id!)).toMatchObject({ status: 'done', attempts: 2, sentAt: clock.time });
    platform.close();
  });

  it('stops claiming at stop(); idle() resolves once nothing is in flight', async () => {
    platform.mode = 'hold';
    const [held, waiting] = await store.insert([message(1, 1, 'held'), message(1, 2, 'waits')]);
    const d = dispatcher('a');
    d.start();
    await eventually('one call in flight', () => d.inFlight === 1);
    let idle = false;
    void d.idle().then(() => {
      idle = true;
    });
    const stopped = d.stop(60_000);
    platform.mode = 'ok';
    for (const resolve of platform.held.splice(0)) resolve();
    await stopped;
    await eventually('idle', () => idle);
    expect(d.inFlight).toBe(0);
    expect(await store.row(held!)).toMatchObject({ status: 'done' });
    expect(await store.row(waiting!)).toMatchObject({ status: 'pending', attempts: 0 });
    d.wake(); // stopped: nothing happens
    await turns();
    expect(platform.calls).toHaveLength(1);
  });

  it('pauses after lead() for the handover, on the clock, before its first claim', async () => {
    await store.insert([message(1, 1, 'after the pause')]);
    const d = dispatcher('a', { handoverPauseMs: 1000 });
    d.lead();
    expect(d.leading).toBe(true);
    await turns(); // no claim is queued: only the pause's timer
    expect(platform.calls).toEqual([]);
    clock.advance(1001);
    await eventually('sent after the pause', () => outcomes.length === 1);
    d.follow();
    expect(d.leading).toBe(false);
  });

  it('issue 36: no blind pause when the last second is known: handed over (counted, chat by chat) or the previous one died', async () => {
    await store.insert([message(1, 1, 'to chat 1'), message(2, 1, 'to chat 2')]);
    // A clean handover: the previous dispatcher wrote to chat 1 100 ms ago; chat 2 it did not.
    const d = dispatcher('a', { handoverPauseMs: 1000 });
    d.lead([{ agoMs: 100, chatId: 1 }]);
    await eventually('chat 2 served at once', () => platform.texts(2).length === 1);
    await turns();
    expect(platform.texts(1)).toEqual([]); // chat 1 waits until that call no longer counts
    clock.advance(1001);
    await eventually('chat 1 served once the handed call aged out', () => platform.texts(1).length === 1);
    d.follow();

    // Taken from a dead dispatcher: sends at once.
    await store.insert([message(3, 1, 'to chat 3')]);
    await store.become('b');
    const e = dispatcher('b', { handoverPauseMs: 1000 });
    e.lead(undefined, true);
    await eventually('chat 3 served without a pause', () => platform.texts(3).length === 1);
  });

  it("issue 36: after a clean handover, counts the previous dispatcher's calls of its last second", async () => {
    const chats = Array.from({ length: 10 }, (_, i) => i + 100);
    await store.insert(chats.map((chat) => message(chat, 1, `hello ${chat}`)));
    const d = dispatcher('a', { handoverPauseMs: 1000 });
    // 20 calls in its last 100 ms (other chats): 4 more fit in the first window of this one.
    d.lead(Array.from({ length: 20 }, (_, i) => ({ agoMs: 100, chatId: 1000 + i })));
    await eventually('4 sent', () => platform.calls.length === 4);
    await turns();
    expect(platform.calls).toHaveLength(4);
    clock.advance(1001);
    await eventually('the rest once the handed calls aged out', () => platform.calls.length === 10);
  });

  it('pauses again after the last call of a previous dispatcher that was still sending (it spent that second)', async (context) => {
    if (backend.name !== 'PostgreSQL') return context.skip(); // one process on SQLite: none other sends
    const [old] = await store.insert([message(1, 1, 'sent by a')]);
    await store.alive('a');
    platform.mode = 'hold';
    const a = dispatcher('a');
    a.start();
    await eventually('a sending', () => platform.held.length === 1);
    a.follow(); // its lease lapsed while it was alive: its call is still on its way
    await store.become('b');
    await store.insert([message(2, 1, 'sent by b')]);
    platform.mode = 'ok';
    // What b sees of the others' calls, and when it claims.
    const looks: number[] = [];
    let claims = 0;
    const outbox = Object.create(store.outbox) as OutboxPort;
    outbox.othersSending = async (member) => {
      const n = await store.outbox.othersSending(member);
      looks.push(n);
      return n;
    };
    outbox.claimHeads = (...args) => {
      claims++;
      return store.outbox.claimHeads(...args);
    };
    const b = dispatcher('b', { handoverPauseMs: 1000, outbox });
    b.lead();
    clock.advance(1001);
    await eventually('b looked: a still sends', () => looks.length === 1);
    await turns();
    expect([looks, claims]).toEqual([[1], 0]);
    platform.held.shift()!(); // a's last call answered now
    await eventually('a recorded its call', async () => (await store.row(old!)).status === 'done');
    clock.advance(300);
    await eventually('b looked again: a is done', () => looks.length === 2);
    await turns();
    // a's call spent this second's budget: b pauses once more before its first claim.
    expect([looks, claims]).toEqual([[1, 0], 0]);
    clock.advance(1001);
    await eventually('b sent after a second pause', () => platform.texts(2).length === 1);
    expect(looks).toEqual([1, 0]);
  });

  it('issue 28: after two handovers, the first copy is recognised and the person sees one message', async () => {
    const [id] = await store.insert([message(1, 1, 'Your order is confirmed')]);
    const firstSent = clock.time;
    // Dispatcher a sends it; the platform stores it; a dies before the answer.
    platform.mode = 'hold';
    const a = dispatcher('a');
    a.start();
    await eventually('the message delivered', () => platform.held.length === 1);
    await a.stop(0);

    // b takes over a minute later, claims it, and stops before its call goes out: given back.
    clock.advance(60_000);
    platform.mode = 'queue';
    await store.become('b');
    const b = dispatcher('b');
    b.start();
    await eventually('the read-back queued', () => platform.queued.length === 1);
    const stopped = b.stop(60_000);
    platform.close();
    await stopped;
    expect(await store.row(id!)).toMatchObject({ status: 'pending', attempts: 1, sentAt: firstSent });

    // c takes over another minute later: its resend reads the chat back from the first send.
    clock.advance(60_000);
    platform.mode = 'ok';
    await store.become('c');
    const c = dispatcher('c');
    c.start();
    await eventually('the resend settled', () => outcomes.length === 1);
    expect(platform.texts(1)).toEqual(['Your order is confirmed']);
    expect(outcomes[0]).toMatchObject({ outboxId: id, status: 'done', attempts: 2 });
    expect(await store.row(id!)).toMatchObject({ status: 'done', attempts: 2, sentAt: firstSent });
  });
});
