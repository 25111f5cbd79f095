/**
 * The task runner: runs the task outbox of the partitions this process owns (`'all'` for a single process;
 * the cluster engine says which at every change), over the store's task port (store/ports/tasks.ts:
 * SQLite answers at once, PostgreSQL later). Due tasks are started up to `concurrency` at once (a budget of
 * its own, apart from the platform's 30 requests/s), each attempt under a deadline with an AbortSignal
 * (attempt.ts). A result (or a failure after the last attempt) is recorded on the task row and written to
 * the inbox as a `task_result` event in ONE transaction, so the conversation hears it exactly once, in its
 * order. A task left running by a process that stopped runs again, with the same idempotency key.
 *
 * Both ends are group commits: one statement starts every due task there is room for, and the attempts
 * that ended within one turn of the event loop are recorded in one transaction, which also starts the
 * next due tasks. All waiting (retries coming due, cancel checks, polling) goes through the injected
 * clock, so on a virtual clock a retry comes due when the clock says.
 */
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../../store/ports/index.ts';
import { andThen } from '../../store/ports/index.ts';
import type { Partitions, TaskPort, TaskRow } from '../../store/ports/tasks.ts';
import { settledWithin } from '../wait.ts';
import { type AttemptOptions, cancelledOf, compensatesOf, runAttempt, verdictOf } from './attempt.ts';
import { type Ended, endOf, settle, type TaskOutcome, tell } from './recording.ts';
import { TASK_CODES, TaskError } from './task.ts';

export type { TaskOutcome } from './recording.ts';

export interface TaskRunnerOptions extends AttemptOptions {
  /** The task outbox: `TaskStore` (SQLite) or `PgTasks` (PostgreSQL). */
  port: TaskPort;
  clock: Clock;
  /** The partitions run at first (default `'all'`); `setPartitions` changes them. */
  partitions?: Partitions;
  /** Tasks running at once (default 16). */
  concurrency?: number;
  /**
   * How often to look for work nobody announces (tasks a dead process left running, partitions gained),
   * on the clock; by default never (one process: every change goes through `wake`).
   */
  pollMs?: number;
  logger?: Logger | undefined;
  /** A result was written to the inbox: the engine processes it. */
  onResult(): void;
  onOutcome?(outcome: TaskOutcome): void;
}

const CANCEL_CHECK_MS = 250;
/** Why a stopping process aborts the attempts still running: they stay `running` and run again later. */
const STOPPING = new Error('the process is stopping');

/** Runs tasks from the task outbox. */
export class TaskRunner {
  readonly #o: TaskRunnerOptions;
  readonly #port: TaskPort;
  readonly #clock: Clock;
  readonly #running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  #partitions: Partitions;
  #started = false;
  /** Tasks left running by a stopped process are looked for at the next pump (start, new partitions, poll). */
  #recoverDue = false;
  #pumpQueued = false;
  #pumping = false;
  #again = false;
  /** Pumps done, and how many tasks the last one started (idle: a look found nothing to start). */
  #pumps = 0;
  #lastClaimed = 0;
  #wake: { at: number; handle: TimerHandle } | undefined;
  #poll: TimerHandle | undefined;
  #cancelCheck: { handle: TimerHandle } | undefined;
  /** Attempts that ended, waiting for the next group commit. */
  #ended: Ended[] = [];
  #recordQueued = false;
  #recording = false;
  #recordTries = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(options: TaskRunnerOptions) {
    this.#o = options;
    this.#port = options.port;
    this.#clock = options.clock;
    this.#partitions = options.partitions ?? 'all';
  }

  get #max(): number {
    return this.#o.concurrency ?? 16;
  }

  /** Starts running tasks; those a stopped process left running are run again (same idempotency key). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#recoverDue = true;
    this.#armPoll();
    this.wake();
  }

  /** The partitions this process owns now (tasks of partitions it lost finish here; none start). */
  setPartitions(partitions: Partitions): void {
    this.#partitions = partitions === 'all' ? 'all' : [...partitions];
    this.#recoverDue = true;
    this.wake();
  }

  /** Stops starting tasks; waits up to `waitMs` for running ones, then aborts them (they run again later). */
  async stop(waitMs = 10_000): Promise<void> {
    this.#started = false;
    this.#clearWake();
    if (this.#poll !== undefined) this.#clock.clearTimer(this.#poll);
    this.#poll = undefined;
    if (this.#cancelCheck) this.#clock.clearTimer(this.#cancelCheck.handle);
    this.#cancelCheck = undefined;
    if (this.#running.size === 0) return;
    const all = [...this.#running.values()].map((r) => r.done);
    await settledWithin(all, waitMs);
    for (const { controller } of this.#running.values()) controller.abort(STOPPING);
    await Promise.allSettled(all);
  }

  /** New tasks were committed (or a retry came due): look for work soon. */
  wake(): void {
    if (!this.#started) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    if (this.#pumpQueued) return;
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

  /** Resolves when no task runs and none this process may start is due now (tests, drain). */
  async idle(): Promise<void> {
    let lookedAt = -1;
    for (;;) {
      if (this.#quiet()) {
        if (!this.#started || !this.#port.open) return;
        // A look since the last call found nothing it may start (due tasks of partitions not held yet).
        if (lookedAt >= 0 && this.#pumps > lookedAt && this.#lastClaimed === 0) return;
        let next: number | undefined;
        try {
          next = await this.#port.nextRunAfter(this.#partitions);
        } catch {
          return;
        }
        if (this.#quiet()) {
          if (next === undefined || next > this.#clock.now()) return;
          lookedAt = this.#pumps;
          this.wake();
          if (this.#quiet()) return;
        }
      }
      await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    }
  }

  #quiet(): boolean {
    return this.#running.size === 0 && !this.#pumpQueued && !this.#pumping;
  }

  /** Recovers when due, starts the due tasks there is room for, and arms the wake for the next one. */
  #pump(): void {
    if (!this.#started || !this.#port.open) {
      this.#notifyIdle();
      return;
    }
    this.#pumping = true;
    let claimed = 0;
    const partitions = this.#partitions;
    const recover = this.#recoverDue;
    this.#recoverDue = false;
    settle(
      () =>
        andThen(recover ? this.#port.recover(partitions, [...this.#running.keys()]) : 0, (again) => {
          if (again > 0)
            this.#o.logger?.warn(
              { tasks: again },
              'running again tasks that were running when their process stopped',
            );
          const free = this.#max - this.#running.size;
          if (free <= 0) return undefined;
          // A read first: the claim is a write, which would wait for the engine's commits to take the lock.
          return andThen(this.#port.nextRunAfter(partitions), (next) => {
            if (next === undefined || next > this.#clock.now()) return next;
            return andThen(this.#port.claimDue(partitions, this.#clock.now(), free), (rows) => {
              claimed = rows.length;
              for (const row of rows) this.#launch(row);
              return this.#port.nextRunAfter(partitions);
            });
          });
        }),
      (result) => {
        if ('error' in result) {
          if (recover) this.#recoverDue = true;
          if (this.#port.open)
            this.#o.logger?.error({ err: result.error }, 'could not start tasks; trying again');
        } else this.#armWake(result.value);
        this.#pumping = false;
        this.#pumps++;
        this.#lastClaimed = claimed;
        this.#armCancelCheck();
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
        this.#notifyIdle();
      },
    );
  }

  /** Wakes up when the earliest retry comes due (when there is room to start it). */
  #armWake(next: number | undefined): void {
    if (next === undefined || !this.#started || this.#running.size >= this.#max) {
      this.#clearWake();
      return;
    }
    if (this.#wake?.at === next) return;
    this.#clearWake();
    const handle = this.#clock.setTimer(
      () => {
        this.#wake = undefined;
        this.wake();
      },
      Math.max(0, next - this.#clock.now()),
    );
    this.#wake = { at: next, handle };
  }

  #clearWake(): void {
    if (this.#wake) this.#clock.clearTimer(this.#wake.handle);
    this.#wake = undefined;
  }

  #armPoll(): void {
    const every = this.#o.pollMs;
    if (!every || !this.#started) return;
    this.#poll = this.#clock.setTimer(() => {
      this.#poll = undefined;
      this.#recoverDue = true;
      this.wake();
      this.#armPoll();
    }, every);
  }

  /** While tasks run, looks now and then whether their steps cancelled them (the `cancel` input policy). */
  #armCancelCheck(): void {
    if (this.#cancelCheck || this.#running.size === 0 || !this.#started) return;
    const check = { handle: undefined as TimerHandle };
    this.#cancelCheck = check;
    check.handle = this.#clock.setTimer(() => {
      if (this.#cancelCheck === check) this.#cancelCheck = undefined;
      if (!this.#port.open) return;
      settle(
        () => this.#port.cancelled([...this.#running.keys()]),
        (result) => {
          if ('value' in result)
            for (const id of result.value)
              this.#running.get(id)?.controller.abort(new TaskError(TASK_CODES.cancelled));
          this.#armCancelCheck();
        },
      );
    }, CANCEL_CHECK_MS);
  }

  #launch(row: TaskRow): void {
    const controller = new AbortController();
    const started = this.#clock.now();
    const attempt = row.attempts;
    const compensates = compensatesOf(row);
    const original = new Promise<TaskRow | undefined>((resolve) =>
      compensates === undefined
        ? resolve(undefined)
        : settle(
            () => this.#port.get(compensates),
            (r) => resolve('value' in r ? r.value : undefined),
          ),
    );
    const done = original
      .then((o) => runAttempt(row, attempt, controller, this.#o, cancelledOf(o)))
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
    this.#armCancelCheck();
  }

  #queueRecording(delayMs = 0): void {
    if (this.#recordQueued || this.#recording) return;
    this.#recordQueued = true;
    const go = () => {
      this.#recordQueued = false;
      this.#flush();
    };
    if (delayMs > 0) this.#clock.setTimer(go, delayMs);
    else setImmediate(go);
  }

  /** Records the attempts that ended in one transaction, which also starts the tasks they make room for. */
  #flush(): void {
    const ended = this.#ended;
    this.#ended = [];
    if (ended.length === 0) return;
    if (!this.#port.open) {
      // The database is closed: the rows stay running and run again at the next start.
      for (const e of ended) e.recorded();
      return;
    }
    const now = this.#clock.now();
    const verdicts = ended.map((e) => verdictOf(e.row, e.attempt, e.outcome, now));
    const ends = ended.map((e, i) => endOf(e, verdicts[i]!));
    const free = this.#started ? this.#max - (this.#running.size - ended.length) : 0;
    const claim = free > 0 ? { partitions: this.#partitions, limit: free } : undefined;
    this.#recording = true;
    settle(
      () => this.#port.record(ends, now, claim),
      (result) => {
        this.#recording = false;
        if ('error' in result) {
          this.#recordTries++;
          if (this.#port.open && (this.#started || this.#recordTries <= 3)) {
            // The database refused for now (busy, disk full…): the outcomes are kept and recorded again
            // shortly; nothing is lost and nothing runs twice meanwhile (the rows stay running).
            this.#o.logger?.error(
              { err: result.error, tasks: ended.length },
              'could not record task outcomes; trying again',
            );
            this.#ended.unshift(...ended);
            this.#queueRecording(Math.min(5_000, 250 * this.#recordTries));
            return;
          }
          // Closed, or stopping: the rows stay running and run again later.
          for (const e of ended) e.recorded();
          return;
        }
        this.#recordTries = 0;
        let results = 0;
        ended.forEach((e, i) => {
          if (tell(e, verdicts[i]!, result.value.recorded[i]!, this.#clock.now(), this.#o)) results++;
        });
        if (results > 0) this.#o.onResult();
        for (const row of result.value.claimed) this.#launch(row);
        for (const e of ended) e.recorded();
        if (this.#ended.length > 0) this.#queueRecording();
      },
    );
  }

  #notifyIdle(): void {
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}
