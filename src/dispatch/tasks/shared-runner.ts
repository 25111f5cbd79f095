/**
 * The task runner of a process among several on PostgreSQL: it runs the due tasks of the partitions this
 * process owns (the cluster engine tells it which, at every change), at most `concurrency` at once, each
 * attempt under its deadline (attempt.ts, the same as the single-process runner). An ended attempt is
 * recorded with its `task_result` event in one statement (store/postgres/tasks.ts); a task left running by
 * a process that died runs again from its partition's next owner, with the same idempotency key.
 */
import type { Logger } from 'pino';
import type { PgTasks } from '../../store/postgres/tasks.ts';
import type { TaskRow } from '../../store/tasks.ts';
import { settledWithin } from '../wait.ts';
import {
  type AttemptOptions,
  cancelledOf,
  compensatesOf,
  lateOutcome,
  plain,
  runAttempt,
  type Settled,
  verdictOf,
} from './attempt.ts';
import type { TaskOutcome } from './runner.ts';
import { TASK_CODES, TaskError } from './task.ts';

export interface SharedTaskRunnerOptions extends AttemptOptions {
  store: PgTasks;
  /** This process's member id (the claimer recorded on running tasks). */
  member: string;
  /** Tasks running at once in this process (default 16). */
  concurrency?: number;
  logger?: Logger | undefined;
  /** A result went to the inbox: the engine looks. */
  onResult(): void;
  onOutcome?(outcome: TaskOutcome): void;
  /** How often due retries and orphaned tasks are looked for (default 500 ms). */
  pollMs?: number;
}

const CANCEL_CHECK_MS = 250;
const STOPPING = new Error('the process is stopping');

/** Runs the owned partitions' tasks. */
export class SharedTaskRunner {
  readonly #o: SharedTaskRunnerOptions;
  readonly #running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  #partitions: number[] = [];
  #started = false;
  #pumping = false;
  #again = false;
  #poll: NodeJS.Timeout | undefined;
  #cancelCheck: NodeJS.Timeout | undefined;
  #idleWaiters: (() => void)[] = [];

  constructor(options: SharedTaskRunnerOptions) {
    this.#o = options;
  }

  /** The partitions this process owns now (tasks of partitions it lost finish here; none start). */
  setPartitions(partitions: readonly number[]): void {
    this.#partitions = [...partitions];
    this.wake();
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#poll = setInterval(() => this.wake(), this.#o.pollMs ?? 500);
    this.#poll.unref();
    this.wake();
  }

  /**
   * Starts nothing more; waits up to `waitMs` for running attempts, then aborts them: they stay `running`
   * and the partition's next owner runs them again once this process has left.
   */
  async stop(waitMs = 10_000): Promise<void> {
    this.#started = false;
    clearInterval(this.#poll);
    clearTimeout(this.#cancelCheck);
    this.#cancelCheck = undefined;
    if (this.#running.size === 0) return;
    const all = [...this.#running.values()].map((r) => r.done);
    await settledWithin(all, waitMs);
    for (const { controller } of this.#running.values()) controller.abort(STOPPING);
    await Promise.allSettled(all);
  }

  /** Tasks running now. */
  get inFlight(): number {
    return this.#running.size;
  }

  /** Resolves when no task runs here and none of the owned partitions is due now. */
  async idle(): Promise<void> {
    for (;;) {
      if (this.#running.size === 0 && !this.#pumping) {
        const next = this.#started ? await this.#o.store.nextRunAfter(this.#partitions) : undefined;
        if (next === undefined || next > this.#o.clock.now()) return;
        this.wake();
      }
      await new Promise<void>((resolve) => {
        this.#idleWaiters.push(resolve);
        setTimeout(resolve, 50).unref();
      });
    }
  }

  /** Look for due tasks soon. */
  wake(): void {
    if (!this.#started) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = true;
    void this.#pump()
      .catch((error: unknown) => this.#o.logger?.error({ err: error }, 'could not start tasks; trying again'))
      .finally(() => {
        this.#pumping = false;
        if (this.#again) {
          this.#again = false;
          this.wake();
        } else this.#notifyIdle();
      });
  }

  async #pump(): Promise<void> {
    const free = (this.#o.concurrency ?? 16) - this.#running.size;
    if (free <= 0 || this.#partitions.length === 0) return;
    const rows = await this.#o.store.claimDue(this.#o.member, this.#partitions, this.#o.clock.now(), free);
    for (const row of rows) this.#launch(row);
    this.#armCancelCheck();
  }

  #launch(row: TaskRow): void {
    const controller = new AbortController();
    const started = this.#o.clock.now();
    const compensates = compensatesOf(row);
    const cancelled =
      compensates === undefined
        ? Promise.resolve(undefined)
        : this.#o.store.get(compensates).then(cancelledOf, () => undefined);
    const done = cancelled
      .then((c) => runAttempt(row, row.attempts, controller, this.#o, c))
      .then((outcome) =>
        controller.signal.reason === STOPPING ? undefined : this.#record(row, outcome, started),
      )
      .finally(() => {
        this.#running.delete(row.id);
        if (this.#started) this.wake();
        else this.#notifyIdle();
      });
    this.#running.set(row.id, { controller, done });
  }

  /** Records an ended attempt; the database refusing for now is tried again (the row stays running meanwhile). */
  async #record(row: TaskRow, outcome: Settled, started: number): Promise<void> {
    const attempt = row.attempts;
    const base = {
      taskId: row.id,
      conversationKey: row.conversationKey,
      task: row.name,
      attempt,
      ms: this.#o.clock.now() - started,
      input: JSON.parse(row.input) as unknown,
      ...(row.chatId !== null ? { chatId: row.chatId } : {}),
    };
    const verdict = verdictOf(row, attempt, outcome, this.#o.clock.now());
    for (let tries = 1; ; tries++) {
      try {
        if (verdict.kind === 'cancelled') {
          await this.#o.store.recordLate(row, {}, this.#o.clock.now()); // aborted: only that it ended
          this.#o.onOutcome?.({ ...base, status: 'cancelled', error: verdict.error });
          return;
        }
        if (verdict.kind === 'retry') {
          if (!(await this.#o.store.retryLater(row.id, verdict.runAfter, JSON.stringify(verdict.error)))) {
            await this.#o.store.recordLate(row, lateOutcome(outcome), this.#o.clock.now());
            this.#o.onOutcome?.({ ...base, status: 'cancelled', error: verdict.error });
            return;
          }
          this.#o.logger?.warn(
            { taskId: row.id, task: row.name, attempt, error: verdict.error },
            'task attempt failed; trying again',
          );
          this.#o.onOutcome?.({ ...base, status: 'retry', error: verdict.error });
          return;
        }
        const settled = await this.#o.store.finish(row, verdict.finish, verdict.payload, this.#o.clock.now());
        if (!settled) {
          // Cancelled meanwhile (its step was left): the outcome is kept on the row, nobody is told.
          await this.#o.store.recordLate(row, lateOutcome(outcome), this.#o.clock.now());
          this.#o.onOutcome?.({ ...base, status: 'cancelled' });
          return;
        }
        this.#o.onResult();
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
        return;
      } catch (error) {
        if (!this.#started && tries > 3) return; // stopping: the row stays running; the next owner runs it again
        this.#o.logger?.error(
          { err: error, taskId: row.id },
          'could not record a task outcome; trying again',
        );
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 250 * tries)));
      }
    }
  }

  /** While tasks run, looks now and then whether their steps cancelled them. */
  #armCancelCheck(): void {
    if (this.#cancelCheck !== undefined || this.#running.size === 0) return;
    this.#cancelCheck = setTimeout(() => {
      this.#cancelCheck = undefined;
      void this.#o.store
        .cancelled([...this.#running.keys()])
        .then((ids) => {
          for (const id of ids) this.#running.get(id)?.controller.abort(new TaskError(TASK_CODES.cancelled));
        })
        .catch(() => {})
        .finally(() => {
          if (this.#started) this.#armCancelCheck();
        });
    }, CANCEL_CHECK_MS);
    this.#cancelCheck.unref();
  }

  #notifyIdle(): void {
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}
