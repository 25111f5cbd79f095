/**
 * The task runner: runs the task outbox. Pending tasks are started up to `concurrency` at once (a budget
 * of its own, apart from the platform's 30 requests/s), each attempt under a deadline with an AbortSignal.
 * A result (or a failure after the last attempt) is recorded on the task row and written to the inbox as a
 * `task_result` event in ONE transaction, so the conversation hears it exactly once, in its order. A task
 * left running by a crash runs again at the next start, with the same idempotency key.
 *
 * Both ends are group commits: one statement starts every due task there is room for, and the attempts
 * that ended within one turn of the event loop are recorded in one transaction (one disk sync for many).
 */
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { EngineInbox } from '../../store/engine-inbox.ts';
import { type TaskRow, TaskStore } from '../../store/tasks.ts';
import type { CallGateway } from '../dispatcher.ts';
import { settledWithin } from '../wait.ts';
import {
  cancelledOf,
  compensatesOf,
  lateOutcome,
  plain,
  runAttempt,
  type Settled,
  type Verdict,
  verdictOf,
} from './attempt.ts';
import { TASK_CODES, type TaskDefinition, TaskError } from './task.ts';

/** Time and waiting, as the engine's clock gives them. */
export interface RunnerClock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** What happened to one task attempt. */
export interface TaskOutcome {
  taskId: number;
  conversationKey: string;
  task: string;
  attempt: number;
  /** `retry`: the attempt failed and another is planned; `cancelled`: the step cancelled it meanwhile. */
  status: 'done' | 'failed' | 'retry' | 'cancelled';
  ms: number;
  /** The input it ran with, and its result when done (recordings, the playground). */
  input: unknown;
  result?: unknown;
  /** The conversation's chat, when known. */
  chatId?: number;
  error?: { code: string; message: string };
}

export interface TaskRunnerOptions {
  db: Database.Database;
  tasks: Readonly<Record<string, TaskDefinition>>;
  clock: RunnerClock;
  /** Tasks running at once (default 16). */
  concurrency?: number;
  /** Where "typing…" goes while a task runs (the scheduler); without it nothing is shown. */
  gateway?: CallGateway | undefined;
  /** How often "typing…" is sent again while a task runs (default 4 s; the platform shows it a few seconds). */
  typingEveryMs?: number;
  logger?: Logger | undefined;
  /** A result was written to the inbox: the engine processes it. */
  onResult(): void;
  onOutcome?(outcome: TaskOutcome): void;
}

const CANCEL_CHECK_MS = 250;
/** Why a stopping process aborts the attempts still running: they stay `running` and run again at the next start. */
const STOPPING = new Error('the process is stopping');

/** An attempt that ended, to be recorded. */
type Ended = { row: TaskRow; attempt: number; outcome: Settled; started: number };

/** Runs tasks from the task outbox. */
export class TaskRunner {
  readonly #o: TaskRunnerOptions;
  readonly #store: TaskStore;
  readonly #inbox: EngineInbox;
  readonly #running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  readonly #settle: (
    row: TaskRow,
    finish: Extract<Verdict, { kind: 'settle' }>['finish'],
    payload: string,
  ) => boolean;
  /** Attempts that ended, waiting for the next group commit; each resolves when recorded. */
  #ended: (Ended & { recorded: () => void })[] = [];
  #recordQueued = false;
  /** Records ended attempts in one transaction; what to tell listeners goes into `after` (run after commit). */
  readonly #recordAll: Database.Transaction<
    (ended: readonly Ended[], after: (() => void)[], free: number) => TaskRow[]
  >;
  #started = false;
  #wake: unknown;
  #wakeAt: number | undefined;
  #cancelCheck: NodeJS.Timeout | undefined;
  #pumpQueued = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: TaskRunnerOptions) {
    this.#o = options;
    this.#store = new TaskStore(options.db);
    this.#inbox = new EngineInbox(options.db);
    // Runs inside #recordAll's transaction: the task row and its inbox event commit together.
    this.#settle = (row, finish, payload) => {
      const now = this.#o.clock.now();
      if (!this.#store.finish(row.id, finish, now)) return false; // cancelled meanwhile: nobody hears of it
      this.#inbox.add({
        kind: 'task_result',
        dedupeKey: `task:${row.id}`,
        conversationKey: row.conversationKey,
        payload,
        receivedAt: now,
      });
      return true;
    };
    this.#recordAll = options.db.transaction(
      (ended: readonly Ended[], after: (() => void)[], free: number) => {
        let results = 0;
        for (const e of ended) if (this.#record(e.row, e.attempt, e.outcome, e.started, after)) results++;
        if (results > 0) after.push(() => this.#o.onResult());
        return free > 0 ? this.#store.claimDue(this.#o.clock.now(), free) : [];
      },
    );
  }

  /** Starts running tasks; those a stopped process left running are run again (same idempotency key). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    const again = this.#store.recover();
    if (again > 0)
      this.#o.logger?.warn(
        { tasks: again },
        'running again tasks that were running when the process stopped',
      );
    this.wake();
  }

  /** Stops starting tasks; waits up to `waitMs` for running ones, then aborts them (they run again next start). */
  async stop(waitMs = 10_000): Promise<void> {
    this.#started = false;
    this.#clearWake();
    clearTimeout(this.#cancelCheck);
    this.#cancelCheck = undefined;
    if (this.#running.size === 0) return;
    const all = [...this.#running.values()].map((r) => r.done);
    await settledWithin(all, waitMs);
    for (const { controller } of this.#running.values()) controller.abort(STOPPING);
    await Promise.allSettled(all);
  }

  /** New tasks were committed (or a retry came due): look for work soon. */
  wake(): void {
    if (!this.#started || this.#pumpQueued) return;
    this.#pumpQueued = true;
    setImmediate(() => {
      this.#pumpQueued = false;
      this.#pump();
    });
  }

  /** Tasks running now. */
  get inFlight(): number {
    return this.#running.size;
  }

  /** Resolves when no task runs and none is due now (tests, drain). */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #isIdle(): boolean {
    if (this.#running.size > 0 || this.#pumpQueued) return false;
    if (!this.#started || !this.#o.db.open) return true;
    const next = this.#store.nextRunAfter();
    return next === undefined || next > this.#o.clock.now();
  }

  #pump(): void {
    if (!this.#started || !this.#o.db.open) {
      this.#notifyIdle();
      return;
    }
    const max = this.#o.concurrency ?? 16;
    const now = this.#o.clock.now();
    const free = max - this.#running.size;
    // A read first: the claim is a write, which would wait for the engine's commits to take the lock.
    const next = free > 0 ? this.#store.nextRunAfter() : undefined;
    if (next !== undefined && next <= now)
      for (const row of this.#store.claimDue(now, free)) this.#launch(row, row.attempts);
    this.#armWake();
    this.#armCancelCheck();
    this.#notifyIdle();
  }

  /** Wakes up when the earliest retry comes due. */
  #armWake(): void {
    const next = this.#store.nextRunAfter();
    if (next === undefined || this.#running.size >= (this.#o.concurrency ?? 16)) {
      this.#clearWake();
      return;
    }
    if (this.#wakeAt === next) return;
    this.#clearWake();
    this.#wakeAt = next;
    this.#wake = this.#o.clock.setTimer(
      () => {
        this.#wake = undefined;
        this.#wakeAt = undefined;
        this.#pump();
      },
      Math.max(0, next - this.#o.clock.now()),
    );
  }

  #clearWake(): void {
    if (this.#wake !== undefined) this.#o.clock.clearTimer(this.#wake);
    this.#wake = undefined;
    this.#wakeAt = undefined;
  }

  /** While tasks run, looks now and then whether their steps cancelled them (the `cancel` input policy). */
  #armCancelCheck(): void {
    if (this.#cancelCheck !== undefined || this.#running.size === 0) return;
    this.#cancelCheck = setTimeout(() => {
      this.#cancelCheck = undefined;
      if (!this.#o.db.open) return;
      for (const [id, { controller }] of this.#running) {
        if (this.#store.get(id)?.status === 'cancelled')
          controller.abort(new TaskError(TASK_CODES.cancelled));
      }
      this.#armCancelCheck();
    }, CANCEL_CHECK_MS);
    this.#cancelCheck.unref();
  }

  #launch(row: TaskRow, attempt: number): void {
    const controller = new AbortController();
    const started = this.#o.clock.now();
    const compensates = compensatesOf(row);
    const cancelled = compensates === undefined ? undefined : cancelledOf(this.#store.get(compensates));
    const done = runAttempt(row, attempt, controller, this.#o, cancelled)
      .then((outcome) =>
        controller.signal.reason === STOPPING
          ? undefined
          : new Promise<void>((recorded) => {
              this.#ended.push({ row, attempt, outcome, started, recorded });
              this.#queueRecording();
            }),
      )
      .finally(() => {
        this.#running.delete(row.id);
        if (this.#started) this.wake();
        else this.#notifyIdle();
      });
    this.#running.set(row.id, { controller, done });
  }

  #queueRecording(delayMs = 0): void {
    if (this.#recordQueued) return;
    this.#recordQueued = true;
    const later = (fn: () => void) => (delayMs > 0 ? setTimeout(fn, delayMs).unref() : setImmediate(fn));
    later(() => {
      this.#recordQueued = false;
      const ended = this.#ended;
      this.#ended = [];
      const after: (() => void)[] = [];
      // The slots these attempts free are filled in the same transaction: one disk sync records the
      // outcomes and starts the next tasks.
      const free = this.#started ? (this.#o.concurrency ?? 16) - (this.#running.size - ended.length) : 0;
      let claimed: TaskRow[] = [];
      try {
        if (this.#o.db.open) claimed = this.#recordAll.immediate(ended, after, free);
      } catch (error) {
        if (this.#o.db.open) {
          // The database refused for now (busy, disk full…): the outcomes are kept and recorded again
          // shortly; nothing is lost and nothing runs twice meanwhile (the rows stay running).
          this.#o.logger?.error(
            { err: error, tasks: ended.length },
            'could not record task outcomes; trying again',
          );
          this.#ended.push(...ended);
          this.#queueRecording(500);
          return;
        }
        // The database is closed: the rows stay running and run again at the next start.
        after.length = 0;
      }
      for (const notify of after) notify();
      for (const row of claimed) this.#launch(row, row.attempts);
      for (const e of ended) e.recorded();
    });
  }

  /** Records one ended attempt; true when its result went to the inbox. */
  #record(row: TaskRow, attempt: number, outcome: Settled, started: number, after: (() => void)[]): boolean {
    const ms = this.#o.clock.now() - started;
    const base = {
      taskId: row.id,
      conversationKey: row.conversationKey,
      task: row.name,
      attempt,
      ms,
      input: JSON.parse(row.input) as unknown,
      ...(row.chatId !== null ? { chatId: row.chatId } : {}),
    };
    const verdict = verdictOf(row, attempt, outcome, this.#o.clock.now());
    if (verdict.kind === 'cancelled') {
      this.#store.recordLate(row, {}, this.#o.clock.now()); // aborted: nothing to keep but that it ended
      after.push(() => this.#o.onOutcome?.({ ...base, status: 'cancelled', error: verdict.error }));
      return false;
    }
    if (verdict.kind === 'retry') {
      if (!this.#store.retryLater(row.id, verdict.runAfter, JSON.stringify(verdict.error))) {
        this.#store.recordLate(row, lateOutcome(outcome), this.#o.clock.now());
        after.push(() => this.#o.onOutcome?.({ ...base, status: 'cancelled', error: verdict.error }));
        return false;
      }
      after.push(() => {
        this.#o.logger?.warn(
          { taskId: row.id, task: row.name, attempt, error: verdict.error },
          'task attempt failed; trying again',
        );
        this.#o.onOutcome?.({ ...base, status: 'retry', error: verdict.error });
      });
      return false;
    }
    if (!this.#settle(row, verdict.finish, verdict.payload)) {
      // Cancelled meanwhile (its step was left): the outcome is kept on the row, nobody is told.
      this.#store.recordLate(row, lateOutcome(outcome), this.#o.clock.now());
      after.push(() => this.#o.onOutcome?.({ ...base, status: 'cancelled' }));
      return false;
    }
    after.push(() => {
      if (!outcome.ok)
        this.#o.logger?.warn(
          { taskId: row.id, task: row.name, attempt, error: plain(outcome.error) },
          'task failed for good',
        );
      this.#o.onOutcome?.({
        ...base,
        status: outcome.ok ? 'done' : 'failed',
        ...(outcome.ok ? { result: outcome.result } : { error: plain(outcome.error) }),
      });
    });
    return true;
  }

  #notifyIdle(): void {
    if (this.#idleWaiters.length === 0 || !this.#isIdle()) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
