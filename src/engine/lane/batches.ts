/**
 * Batches of inbox events, planned and committed: the engine's one processing loop, over either store.
 *
 * A started engine plans batch N+1 while the store commits batch N (SQLite's writer thread on a second
 * core, PostgreSQL's round trip), at most `depth` batches at a time; batches that share a conversation are
 * committed in the order planned (PostgreSQL commits the others side by side). A planned batch's sessions
 * count as the conversations' state until its results come back. When events
 * are held back (a session moved on under another process, or an earlier event of the conversation
 * failed) or a batch cannot be committed at all, planning pauses until every batch in flight is answered,
 * then starts again from the store: nothing is planned twice, nothing is skipped.
 *
 * `processPending()` is the same work on the caller's connection, batch after batch until none waits:
 * synchronous on a synchronous store (tests, tools, the virtual clock).
 */
import type { Logger } from 'pino';
import { BotflowError } from '../../errors/index.ts';
import type { InboxEvent } from '../../store/engine-inbox.ts';
import type { EngineStore, Partitions } from '../../store/ports/engine.ts';
import { andThen, type MaybePromise } from '../../store/ports/index.ts';
import type { SessionRow } from '../../store/sessions.ts';
import type { ApplyResult } from '../../store/write-plan.ts';
import { interactiveFirst } from './campaign-entry.ts';
import { readWaiting } from './handoff-queue.ts';
import type { EventOutcome, EventPlan } from './planner.ts';
import { type BatchPlanner, writesOf } from './processor.ts';
import type { SessionCache } from './session-cache.ts';

/** What the loop needs from the engine. */
export interface BatchLoopOptions {
  store: EngineStore;
  planner: BatchPlanner;
  cache: SessionCache;
  member: string;
  /** The partitions this process handles now. */
  partitions(): Partitions;
  now(): number;
  batchSize: number;
  /** Batches in flight at most (default: the store's `batchesInFlight`, else 2). */
  depth?: number;
  /** Rebuilds the flow versions loaded sessions are pinned to that this process lacks. */
  restore(sessions: Iterable<SessionRow>): MaybePromise<void>;
  logger?: Logger | undefined;
  /** Hears the outcomes of every committed batch. */
  report(outcomes: EventOutcome[]): void;
  /** There may be more to do (after `delayMs`). */
  wake(delayMs?: number): void;
  /** Nothing waits: the engine arms its timer wake-up. */
  empty(): void;
  /** A batch's partition moved to another process: nothing of it was written. */
  leaseLost(error: unknown): boolean;
}

/** `ok(fn())`, or `fail(error)` when `fn` throws or its promise rejects; synchronous for a value. */
function attempt<T, R>(
  fn: () => MaybePromise<T>,
  ok: (value: T) => MaybePromise<R>,
  fail: (error: unknown) => MaybePromise<R>,
): MaybePromise<R> {
  let value: MaybePromise<T>;
  try {
    value = fn();
  } catch (error) {
    return fail(error);
  }
  return value instanceof Promise ? value.then(ok, fail) : ok(value);
}

/** Plans batches and hands them to the store. */
export class BatchLoop {
  readonly #o: BatchLoopOptions;
  readonly #depth: number;
  /** Sessions read for the batch being planned. */
  #loaded = new Map<string, SessionRow>();
  /**
   * Inbox ids planned and not answered yet: later batches plan the pending rows not among them, read from
   * the first pending row each time. (A cursor past the highest id planned would skip a row whose
   * transaction committed after a higher id's: on PostgreSQL, ids are taken before commit, and several
   * processes commit at once; that row would then wait until the next restart, behind later ones.)
   */
  #planned = new Set<number>();
  #inFlight = 0;
  #reading = false;
  /** Planning is paused until the batches in flight are answered, then restarts from the store. */
  #restart = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: BatchLoopOptions) {
    this.#o = options;
    this.#depth = Math.max(1, options.depth ?? options.store.batchesInFlight ?? 2);
  }

  /** The session the planner asks for, when neither its overlay nor the cache has it. */
  load(key: string): SessionRow | undefined {
    return this.#loaded.get(key);
  }

  /** Batches planned and not answered yet (or being read). */
  get inFlight(): number {
    return this.#inFlight + (this.#reading ? 1 : 0);
  }

  /** Plans one batch and commits it, unless `depth` batches are in flight, planning is paused, or none waits. */
  pump(): void {
    if (this.#restart || this.#reading || this.#inFlight >= this.#depth) return;
    this.#reading = true;
    attempt(
      // A copy: a batch answered while this read runs must stay excluded (the read may predate its commit).
      () => this.#planNext(new Set(this.#planned)),
      (plans) => {
        this.#reading = false;
        if (!plans) {
          if (this.#inFlight === 0) {
            this.#o.empty();
            this.#notifyIdle();
          }
          return;
        }
        this.#commit(plans);
        this.#o.wake(); // plan the next batch while this one commits
      },
      (error) => {
        this.#reading = false;
        this.#o.logger?.error({ err: error }, 'reading the inbox failed; trying again shortly');
        this.#o.wake(500);
        if (this.#inFlight === 0) this.#notifyIdle();
      },
    );
  }

  /**
   * Handles pending events on the caller's connection until none is left; returns what became of each. On
   * a store that answers later, a started engine's batches in flight are waited for, and its loop plans
   * nothing meanwhile (`tick()` on a started engine over PostgreSQL).
   */
  processPending(): MaybePromise<EventOutcome[]> {
    if (this.#o.store.synchronous && (this.#inFlight > 0 || this.#reading)) {
      throw new BotflowError(
        'BOTFLOW_ENGINE_BUSY',
        'processPending() while this started engine commits a batch: await engine.drain() instead',
      );
    }
    const all: EventOutcome[] = [];
    const take = (batch: EventOutcome[]): boolean => {
      if (batch.length === 0) return false;
      this.#o.report(batch);
      for (const outcome of batch) all.push(outcome);
      return true;
    };
    if (this.#o.store.synchronous) {
      while (take(this.#batchHere(3) as EventOutcome[])) {}
      return all;
    }
    return (async () => {
      while (this.#inFlight > 0 || this.#reading) await this.idle();
      this.#reading = true;
      try {
        while (take(await this.#batchHere(3))) {}
      } finally {
        this.#reading = false;
        if (this.#inFlight === 0) this.#notifyIdle();
        this.#o.wake(); // events the loop was told about meanwhile
      }
      return all;
    })();
  }

  /** Resolves when no batch is in flight. */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Up to one batch of pending events not among `planned`, planned; undefined when none waits. */
  #planNext(planned: ReadonlySet<number>): MaybePromise<EventPlan[] | undefined> {
    const { store, batchSize } = this.#o;
    return andThen(store.pending(this.#o.partitions(), 0, batchSize, planned), (read) => {
      if (read.length === 0) return undefined;
      const rows = interactiveFirst(read, this.#o.now()); // people's events before campaign entries
      const handed = this.#o.planner.handOver(rows, this.#o.now());
      const stored = handed.length > 0 ? store.append(handed) : undefined;
      return andThen(stored, () =>
        andThen(this.#load(rows), () =>
          andThen(
            readWaiting(this.#o.planner.handoffSteps(), (s) => store.waitingHandoffs(s)),
            (waiting) => this.#o.planner.plan(rows, waiting),
          ),
        ),
      );
    });
  }

  /** Reads the sessions of `rows` that no cache holds, and rebuilds the flow versions they need. */
  #load(rows: readonly InboxEvent[]): MaybePromise<void> {
    const keys = new Set<string>();
    for (const row of rows)
      if (row.conversationKey && !this.#o.cache.get(row.conversationKey)) keys.add(row.conversationKey);
    if (keys.size === 0) {
      this.#loaded = new Map();
      return;
    }
    return andThen(this.#o.store.sessions([...keys]), (loaded) => {
      this.#loaded = new Map(loaded);
      return this.#o.restore(loaded.values());
    });
  }

  /** One batch on the caller's connection; held events are planned again at once, a few times. */
  #batchHere(retries: number): MaybePromise<EventOutcome[]> {
    const { store, planner } = this.#o;
    return andThen(this.#planNext(new Set()), (plans) => {
      if (!plans) return [];
      return attempt(
        () => store.applyHere(writesOf(plans), this.#o.member, this.#o.now()),
        (results): MaybePromise<EventOutcome[]> => {
          const outcomes = planner.settle(plans, results);
          const held = plans.length - outcomes.length;
          if (held === 0 || retries === 0) return outcomes;
          return andThen(this.#batchHere(retries - 1), (more) => [...outcomes, ...more]);
        },
        (error) => {
          planner.forgetPlanned(); // nothing of the batch was committed
          throw error;
        },
      );
    });
  }

  #commit(plans: EventPlan[]): void {
    const { store, planner } = this.#o;
    const ids = plans.map((plan) => plan.row.id);
    for (const id of ids) this.#planned.add(id);
    this.#inFlight++;
    attempt(
      () => store.apply(writesOf(plans), this.#o.member, this.#o.now()),
      (results: ApplyResult[]) => {
        const outcomes = planner.settle(plans, results);
        if (outcomes.length < plans.length) this.#restart = true; // held events are planned again
        this.#answered(ids);
        this.#o.report(outcomes);
        this.#o.wake();
      },
      (error) => {
        this.#restart = true;
        this.#answered(ids);
        if (this.#o.leaseLost(error)) {
          this.#o.wake();
          return;
        }
        // Nothing of the batch was committed; it is planned again after a pause (a lasting cause such as a
        // full disk must not turn into a busy loop).
        this.#o.logger?.error(
          { err: error, events: plans.length },
          'a batch could not be committed; planning it again shortly',
        );
        this.#o.wake(500);
      },
    );
  }

  #answered(ids: readonly number[]): void {
    this.#inFlight--;
    // Committed rows are no longer pending; held ones are read again (planning waits for the restart).
    for (const id of ids) this.#planned.delete(id);
    if (this.#inFlight > 0) return;
    if (this.#restart) {
      // Everything planned and not committed is forgotten.
      this.#o.planner.forgetPlanned();
      this.#restart = false;
    }
    if (!this.#reading) this.#notifyIdle();
  }

  #notifyIdle(): void {
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}
