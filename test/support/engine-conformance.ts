/**
 * One engine over either store, for the conformance suite (test/engine/conformance.test.ts): a fresh
 * SQLite file or a fresh PostgreSQL database, a virtual clock the test moves, and a fake platform that
 * records every call and keeps the bot's messages per chat (so the dispatcher's read-back works). Updates
 * go into the inbox as intake stores them; assertions read sessions through the store port and outbox,
 * timers and tasks with plain SQL (the same text on both: `?` becomes `$n` on PostgreSQL).
 *
 * The engine is always started: on PostgreSQL a process handles only the partitions it holds leases on,
 * and it takes them when it starts. `settle()` is `engine.drain()`; `advance(ms)` moves the clock (firing
 * the engine's own clock timers), then `await engine.tick(now)` and drains.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { Job } from '../../src/client/scheduler/types.ts';
import type { CallGateway } from '../../src/dispatch/send.ts';
import { createEngine, type Engine, type EngineOptions } from '../../src/engine/engine.ts';
import type { Role } from '../../src/engine/lane/ownership.ts';
import type { EventOutcome } from '../../src/engine/lane/processor.ts';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import type { Clock } from '../../src/store/ports/clock.ts';
import type { EngineStore } from '../../src/store/ports/engine.ts';
import {
  dropPostgresSchema,
  openPostgres,
  openSharedPostgres,
  PARTITIONS,
  type PostgresDatabase,
  type SharedPostgres,
} from '../../src/store/postgres/database.ts';
import { postgresStore } from '../../src/store/postgres/engine-store.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';
import type { SessionRow } from '../../src/store/sessions.ts';
import { sqliteStore } from '../../src/store/sqlite/engine-store.ts';
import type { StepLogRow } from '../../src/store/step-log.ts';
import { eventually } from './eventually.ts';
import { migratedDatabase } from './postgres.ts';

export type StoreKind = 'sqlite' | 'postgres';
export const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const SECRET = 'conformance-secret-for-buttons';

/**
 * A clock that moves only when told; its timers fire, in time order, when it passes them. Each engine gets
 * a view of it; a frozen view's timers never fire again (a process that vanished).
 */
export class ManualClock implements Clock {
  time = T0;
  #timers = new Map<number, { at: number; fn: () => void; view: object }>();
  #frozen = new WeakSet<object>();
  #ids = 0;
  now = () => this.time;
  setTimer = (fn: () => void, ms: number, view: object = this) => {
    const id = ++this.#ids;
    if (!this.#frozen.has(view)) this.#timers.set(id, { at: this.time + Math.max(0, ms), fn, view });
    return id;
  };
  clearTimer = (handle: unknown) => {
    this.#timers.delete(handle as number);
  };
  /** The clock as one engine sees it; `freeze()` drops its timers for good. */
  view(): Clock & { freeze(): void } {
    const view = {
      now: this.now,
      setTimer: (fn: () => void, ms: number) => this.setTimer(fn, ms, view),
      clearTimer: this.clearTimer,
      freeze: () => {
        this.#frozen.add(view);
        for (const [id, t] of this.#timers) if (t.view === view) this.#timers.delete(id);
      },
    };
    return view;
  }
  /** When the timers still armed are due (ms after now), soonest first: what a stuck test waits for. */
  pending(): number[] {
    return [...this.#timers.values()].map((t) => t.at - this.time).sort((a, b) => a - b);
  }
  advance(ms: number): void {
    this.time += ms;
    for (;;) {
      const due = [...this.#timers].filter(([, t]) => t.at <= this.time).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) return;
      this.#timers.delete(due[0]);
      due[1].fn();
    }
  }
}

/** A bot message as the platform keeps it. */
interface Kept {
  mid: string;
  text: string;
  timestamp: number;
}

/**
 * The platform, as far as the engine can tell: answers sends with a message id, keeps the bot's messages
 * per chat for `getMessages`. `stall` sendMessages are delivered and then never answered (a process that
 * dies before it hears back); `hold` keeps every call from being delivered until released.
 */
export class FakePlatform implements CallGateway {
  readonly calls: { op: string; args: Record<string, unknown> }[] = [];
  readonly chats = new Map<number, Kept[]>();
  stall = 0;
  #mids = 0;

  constructor(readonly clock: ManualClock) {}

  async submit(job: Job): Promise<unknown> {
    await job.onStart?.(); // as the scheduler does, before the request goes out
    const args = job.args as Record<string, unknown>;
    this.calls.push({ op: job.op, args });
    const chatId = Number(args.chat_id);
    if (job.op === 'getMessages') {
      const kept = [...(this.chats.get(chatId) ?? [])].reverse();
      return {
        messages: kept.map((m) => ({
          sender: { user_id: 1, is_bot: true },
          timestamp: m.timestamp,
          body: { mid: m.mid, text: m.text },
        })),
      };
    }
    if (job.op !== 'sendMessage') return { success: true };
    const mid = `mid.${(++this.#mids).toString(16).padStart(32, '0')}`;
    const kept: Kept = { mid, text: String(args.text ?? ''), timestamp: this.clock.now() };
    this.chats.set(chatId, [...(this.chats.get(chatId) ?? []), kept]);
    if (this.stall > 0) {
      this.stall--;
      return new Promise(() => {}); // delivered; the answer never comes
    }
    return {
      message: { recipient: { chat_id: chatId }, timestamp: kept.timestamp, body: { mid, text: kept.text } },
    };
  }

  /** What the person in `chatId` sees from the bot, in order. */
  seen(chatId: number): string[] {
    return (this.chats.get(chatId) ?? []).map((m) => m.text);
  }
}

/** What each test may pass to the engine beside the store, clock and platform. */
export type Setup = Omit<EngineOptions<boolean>, 'db' | 'store' | 'clock' | 'now' | 'scheduler' | 'api'>;

/** An outbox row as tests read it. */
export interface OutboxView {
  id: number;
  conversationKey: string;
  op: string;
  status: string;
  attempts: number;
  args: Record<string, unknown>;
}

/** One store under test, with its engine. */
export interface Conformance {
  readonly kind: StoreKind;
  readonly clock: ManualClock;
  readonly platform: FakePlatform;
  engine: Engine<boolean>;
  /** Updates stored as intake stores them (received now), then the engine told. */
  deliver(...updates: object[]): Promise<void>;
  /** Everything pending handled, sent and run: `engine.drain()`. */
  settle(): Promise<void>;
  /** Moves the clock by `ms`, then `engine.tick(now)` and a drain; returns the outcomes of the events handled. */
  advance(ms: number): Promise<EventOutcome[]>;
  /** Stops the engine (calls in flight are not waited for: they stay `sending`), then a new one on the same database. */
  restart(setup?: Partial<Setup>, before?: () => void): Promise<void>;
  /**
   * The engine's process vanishes (no stop: its connection is gone, its clock timers never fire again), and
   * a new engine starts on the database; resolves once it holds every partition and sends (on PostgreSQL
   * when the leases of the vanished one have lapsed, `leaseMs` on the wall clock).
   */
  vanish(): Promise<void>;
  /** Rows of a query written once for both databases (`?` placeholders). */
  rows<T>(sql: string, ...params: unknown[]): Promise<T[]>;
  session(key: string): Promise<SessionRow | undefined>;
  outbox(key?: string): Promise<OutboxView[]>;
  /** Texts the engine planned for a conversation (sendMessage and editMessage), in order. */
  texts(key: string): Promise<string[]>;
  stepLog(query?: { flowId?: string; since?: number }): Promise<StepLogRow[]>;
  close(): Promise<void>;
}

/** Opens `kind` with `flows`, starts the engine, and lets the clock pass the dispatcher's start. */
export async function openConformance(
  kind: StoreKind,
  flows: () => FlowDefinition[],
  setup: Partial<Setup> = {},
): Promise<Conformance> {
  const clock = new ManualClock();
  const platform = new FakePlatform(clock);
  const db = kind === 'sqlite' ? sqliteFiles() : await postgresFiles();
  let generation = 0;
  let base = setup;
  let view = clock.view();
  const vanished: Engine<boolean>[] = [];
  let role: Role | undefined; // as the engine last told it (after acting on it: the dispatcher leads)

  async function open(): Promise<Engine<boolean>> {
    view = clock.view();
    role = undefined;
    const options = {
      flows: flows(),
      secret: SECRET,
      clock: view,
      scheduler: platform,
      tickMs: 100,
      leaseMs: 1000,
      member: `conformance-${++generation}`,
      ...base,
      onRole: (r: Role) => {
        if (r.member === `conformance-${generation}`) role = r;
        base.onRole?.(r);
      },
    };
    const store = await db.open(clock.now);
    const engine = createEngine({ ...options, store } as EngineOptions<boolean> & { store: typeof store });
    await engine.start();
    // The dispatcher's handover pause starts when it takes the role, on the test's clock, which the caller
    // then moves past it. Taken at a later tick (a first tick that failed under load), the pause would start
    // after that move and never end: settle() would wait for ever.
    if (kind === 'postgres' && options.dispatcher !== false)
      await eventually('the engine to take the dispatcher role', () => role?.dispatcher, 20_000);
    return engine;
  }

  const h: Conformance = {
    kind,
    clock,
    platform,
    engine: await open(),
    async deliver(...updates) {
      await db.append(updates.map((u) => ({ ...updateEntry(JSON.stringify(u)), receivedAt: clock.now() })));
      h.engine.notify();
    },
    settle: () => watched('settle()', h.engine.drain()),
    async advance(ms) {
      // Heard, not taken from tick()'s answer: a started engine may handle the timers that came due
      // before tick() gets to them (on PostgreSQL its own wake-up often does).
      const outcomes: EventOutcome[] = [];
      const off = [
        h.engine.on('step', (o) => outcomes.push(o)),
        h.engine.on('error', (o) => outcomes.push(o)),
      ];
      try {
        clock.advance(ms);
        await watched(
          `advance(${ms})`,
          (async () => {
            await h.engine.tick(clock.now());
            await h.engine.drain();
          })(),
        );
      } finally {
        for (const stop of off) stop();
      }
      return outcomes;
    },
    async restart(more = {}, before) {
      await h.engine.stop({ waitMs: 0 });
      await db.close();
      before?.();
      base = { ...base, ...more };
      h.engine = await open();
      clock.advance(1_001); // the new process's dispatcher pause (see below)
    },
    async vanish() {
      vanished.push(h.engine);
      view.freeze();
      await db.close();
      // Dead for seconds, as a crashed process is when its leases lapse: its membership lapses before the next
      // engine looks. A next engine that saw it alive (its last tick renewed its membership, not its dispatcher
      // lease) waits for its call in flight, then pauses a handover second on the test's clock, which by then
      // no longer moves: settle() never returned (CI, PostgreSQL, once).
      await eventually('the vanished engine to be no member any more', async () => !(await db.liveMembers()));
      h.engine = await open();
      // Alone (the other's heartbeat lapsed: its calls in flight are free to send again), every partition.
      await eventually('the new engine to hold every partition and the dispatcher role, alone', () => {
        if (h.kind === 'sqlite') return true;
        return role?.dispatcher && role.members === 1 && role.partitions.length === PARTITIONS;
      });
      clock.advance(1_001);
    },
    rows: (sql, ...params) => db.rows(sql, params),
    async session(key) {
      return (await h.engine.store.sessions([key])).get(key);
    },
    async outbox(key) {
      const rows = await db.rows<Omit<OutboxView, 'args'> & { args: string }>(
        'SELECT CAST(id AS integer) AS id, conversation_key AS "conversationKey", op, status, ' +
          `CAST(attempts AS integer) AS attempts, args FROM outbox ${key ? 'WHERE conversation_key = ? ' : ''}ORDER BY id`,
        key ? [key] : [],
      );
      return rows.map((r) => ({ ...r, args: JSON.parse(r.args) as Record<string, unknown> }));
    },
    async texts(key) {
      return (await h.outbox(key))
        .filter((r) => r.op === 'sendMessage' || r.op === 'editMessage')
        .map((r) => String(r.args.text));
    },
    async stepLog(query) {
      const lines: StepLogRow[] = [];
      for await (const line of h.engine.stepLog(query)) lines.push(line);
      return lines;
    },
    async close() {
      // Its timers stop at once; not awaited: queries it had waiting for its closed pool never answer.
      for (const engine of vanished) void engine.stop({ waitMs: 0 }).catch(() => {});
      await h.engine.stop({ waitMs: 0 });
      await db.close();
      await db.drop();
    },
  };
  clock.advance(1_001); // a process that takes the dispatcher lease pauses a second first (PostgreSQL)
  return h;

  /** `work`, or after 20 s an error that says what the engine still waits for (instead of a test timeout). */
  async function watched(what: string, work: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(async () => {
        const rows = await h.outbox().catch(() => []);
        reject(
          new Error(
            `${what} did not return in 20 s: the clock's timers are due in ${JSON.stringify(clock.pending())} ms; ` +
              `the outbox holds ${JSON.stringify(rows.map((r) => [r.id, r.op, r.status]))}; role ${JSON.stringify(role)}`,
          ),
        );
      }, 20_000);
    });
    try {
      await Promise.race([work, stuck]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A database behind the adapters: opened once per engine, written to as intake would, read with SQL. */
interface Files {
  open(now: () => number): Promise<EngineStore>;
  append(entries: Parameters<InboxStore['append']>[0]): Promise<void>;
  rows<T>(sql: string, params: unknown[]): Promise<T[]>;
  /** Members whose heartbeat has not lapsed (none on SQLite: one process). */
  liveMembers(): Promise<number>;
  close(): Promise<void>;
  drop(): Promise<void>;
}

function sqliteFiles(): Files {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-conformance-'));
  let db: Database.Database | undefined;
  const open = () => {
    db ??= openDatabase({ path: join(dir, 'bot.db'), synchronous: 'NORMAL' });
    return db;
  };
  return {
    async open(now) {
      return sqliteStore(open(), { now });
    },
    async append(entries) {
      new InboxStore(open()).append(entries);
    },
    async rows(sql, params) {
      return open()
        .prepare(sql)
        .all(...params) as never;
    },
    liveMembers: async () => 0,
    async close() {
      db?.close();
      db = undefined;
    },
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * With a schema set (`conformanceSchema`, test/engine/conformance.test.ts's third run), the engine's database
 * on PostgreSQL is that schema on a shared pool of its own process (`openSharedPostgres`), as a deployment of
 * many bots opens each. Set per describe block (the test files share modules: a value, not the environment).
 */
let PG_SCHEMA: string | undefined;

/** The schema the next PostgreSQL stores open in; undefined: the default schema. */
export function conformanceSchema(schema: string | undefined): void {
  PG_SCHEMA = schema;
}

async function postgresFiles(): Promise<Files> {
  const fresh = await migratedDatabase();
  const admin = await openPostgres({ url: fresh.url, max: 2, ...(PG_SCHEMA ? { schema: PG_SCHEMA } : {}) });
  const inbox = new PgInbox(admin.pool);
  let pg: PostgresDatabase | undefined;
  let shared: SharedPostgres | undefined;
  return {
    async open() {
      if (PG_SCHEMA) {
        // A process of its own: its pool and LISTEN connection end when it closes (or vanishes).
        shared = await openSharedPostgres({ url: fresh.url, max: 4 });
        pg = await openPostgres({ url: fresh.url, schema: PG_SCHEMA, shared });
      } else pg = await openPostgres({ url: fresh.url, max: 4 });
      return postgresStore(pg);
    },
    async append(entries) {
      await inbox.append(entries);
    },
    async rows(sql, params) {
      let n = 0;
      const { rows } = await admin.pool.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      );
      return rows as never;
    },
    async liveMembers() {
      const { rows } = await admin.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM members WHERE expires_at > botflow_now_ms()',
      );
      return rows[0]!.n;
    },
    async close() {
      await pg?.close();
      await shared?.close();
      pg = undefined;
      shared = undefined;
    },
    async drop() {
      // A database reused by the next test is emptied in its default schema only.
      if (PG_SCHEMA) await dropPostgresSchema(fresh.url, PG_SCHEMA);
      await admin.close();
      await fresh.drop();
    },
  };
}
