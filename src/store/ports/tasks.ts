/**
 * The task outbox as the task runner needs it, written once for SQLite (store/tasks.ts, synchronous) and
 * PostgreSQL (store/postgres/tasks.ts, asynchronous). Tasks belong to their conversation's partition; a
 * runner runs the partitions its process owns: `'all'` when one process owns everything (SQLite, or one
 * PostgreSQL process), a list when several share the work. Each answer may be a value or a promise.
 */
import type { MaybePromise } from './index.ts';

/** A task row to insert. JSON columns are texts. */
export interface NewTaskRow {
  conversationKey: string;
  revision: number;
  stepInstance: number;
  name: string;
  ref: string;
  input: string;
  scope: string;
  policy: string;
  chatId: number | null;
  idempotencyKey: string;
  createdAt: number;
  /** When its first attempt may start (default: `createdAt`). */
  runAfter?: number;
}

/** A task row as stored (the same on SQLite and PostgreSQL). */
export interface TaskRow extends NewTaskRow {
  id: number;
  status: 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
  attempts: number;
  runAfter: number;
  result: string | null;
  error: string | null;
  startedAt: number | null;
  finishedAt: number | null;
}

/** The partitions a runner runs: every one (a single process), or those its process owns now. */
export type Partitions = 'all' | readonly number[];

/** What an attempt of a task cancelled meanwhile ended with, kept on its row (nobody is told). */
export interface LateOutcome {
  result?: string;
  error?: string;
}

/** An ended attempt, as the runner hands it to the store. */
export type AttemptEnd =
  /** Settle the task and write its `task_result` event (`payload`) to the conversation's inbox. */
  | {
      kind: 'settle';
      row: TaskRow;
      finish: { status: 'done'; result: string } | { status: 'failed'; error: string };
      payload: string;
      late: LateOutcome;
    }
  /** Pending again, to run at `runAfter` (`error`: the failed attempt's, as JSON). */
  | { kind: 'retry'; row: TaskRow; runAfter: number; error: string; late: LateOutcome }
  /** Aborted because its step cancelled it: only that it ended is recorded. */
  | { kind: 'aborted'; row: TaskRow };

/**
 * What became of an ended attempt: `settled` (result in the inbox), `retry` (pending again), or
 * `cancelled` (the task was cancelled meanwhile: its late outcome is kept, its compensation may start).
 */
export type Recorded = 'settled' | 'retry' | 'cancelled';

/** The task queries of one process (a PostgreSQL adapter knows its process's member id). */
export interface TaskPort {
  /** False once the database is closed: the runner stops touching it (rows stay as they are). */
  readonly open: boolean;
  /**
   * Makes pending again the tasks of `partitions` left `running` by a process that is gone, never one of
   * `runningHere` (this process runs them) nor one a live process runs; returns how many.
   */
  recover(partitions: Partitions, runningHere: readonly number[]): MaybePromise<number>;
  /**
   * Starts an attempt (counted) of up to `limit` pending tasks of `partitions` due at `now`, earliest first;
   * returns them as they are now.
   */
  claimDue(partitions: Partitions, now: number, limit: number): MaybePromise<TaskRow[]>;
  /** When the earliest pending task of `partitions` may start, if any. */
  nextRunAfter(partitions: Partitions): MaybePromise<number | undefined>;
  /**
   * Records ended attempts in one transaction, each settled one with its `task_result` inbox event; with
   * `claim`, the slots they free are filled in the same transaction (`claimDue`). Returns what became of
   * each, in order.
   */
  record(
    ends: readonly AttemptEnd[],
    now: number,
    claim?: { partitions: Partitions; limit: number },
  ): MaybePromise<{ recorded: Recorded[]; claimed: TaskRow[] }>;
  /** One task (a compensation reads the task it compensates). */
  get(id: number): MaybePromise<TaskRow | undefined>;
  /** The ids among `ids` whose step cancelled them. */
  cancelled(ids: readonly number[]): MaybePromise<number[]>;
}

/**
 * The ref of a compensating task (`on_cancel`) is its task's ref with this suffix. Compensations belong to
 * no step: leaving a step, stopping the bot or support ending the conversation never cancels them.
 */
export const COMPENSATION_SUFFIX = ':on_cancel';
