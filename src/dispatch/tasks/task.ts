/**
 * The team's own async code, as flows call it: a task is a named function `(input, ctx) => result`,
 * run durably by the task runner (at least once; the idempotency key stays the same across attempts and
 * restarts), with optional zod schemas for its input and result.
 */
import type { Logger } from 'pino';
import type { ZodType } from 'zod';
import { brandClass } from '../../client/brand.ts';
import { BotflowError } from '../../errors/index.ts';

/** What a task run gets besides its input. */
export interface TaskContext {
  /** Aborted at the attempt's deadline, when the step cancels the task, or when the process stops. */
  signal: AbortSignal;
  /** When this attempt times out (ms since the epoch). */
  deadline: number;
  /**
   * The same for every attempt of this task start, also after a crash: give it to the system you call
   * (an `Idempotency-Key` header, a unique column) so that a repeated attempt does nothing twice.
   */
  idempotencyKey: string;
  /** 1 for the first attempt, 2 for the first retry (or the first run after a crash), … */
  attempt: number;
  logger: Logger;
  /**
   * For a compensating task (`on_cancel`): the task that was cancelled, its input, how many attempts it
   * started, and what its last attempt returned when it ended after the cancellation (else undefined).
   */
  cancelled?: { task: string; input: unknown; attempts: number; result?: unknown };
  /** The conversation, read-only: its variables and locale when the task was started. */
  scope: {
    conversation: string;
    /** The conversation's chat, when known. */
    chatId?: number;
    vars: Readonly<Record<string, unknown>>;
    locale?: string;
  };
}

/** A task's function. */
export type TaskRun<I = unknown, R = unknown> = (input: I, ctx: TaskContext) => Promise<R> | R;

/** A task with schemas: input is checked before the run, the result after (a mismatch is a failure). */
export interface TaskSpec<I = unknown, R = unknown> {
  input?: ZodType<I>;
  result?: ZodType<R>;
  run: TaskRun<I, R>;
}

/**
 * What the registry's `tasks` hold: a bare function or a spec with schemas. Each task has input and result
 * types of its own, so the registry holds them without one common type.
 */
// biome-ignore lint/suspicious/noExplicitAny: each task's input and result types are its own (see above)
export type TaskDefinition = TaskRun<any, unknown> | TaskSpec<any, unknown>;

/** Declares a task with typed input and result (the schemas give the types). */
export function defineTask<I, R>(spec: TaskSpec<I, R>): TaskSpec<I, R> {
  return spec;
}

/**
 * A failure the flow can route on: `code` picks the flow's `on_error` entry. Business failures
 * (`slot_taken`) are not retried unless the flow's retry policy names their code; pass
 * `retryable: true` for passing troubles (a 503 from your system).
 */
export class TaskError extends BotflowError {
  override name = 'TaskError';
  /** The task's own code (e.g. `sold_out`); the catalogue's is `botflowCode`: BOTFLOW_TASK_FAILED. */
  override readonly code: string;
  readonly retryable: boolean;

  constructor(code: string, message?: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super('BOTFLOW_TASK_FAILED', message ?? code, options);
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}
// Recognised whichever copy of botflow made it (a registry loaded through tsx has its own): client/brand.ts.
brandClass(TaskError, 'TaskError');

/** How a started task is run: per attempt timeout, and which failures are tried again. */
export interface TaskPolicy {
  /** Per attempt (ms). */
  timeoutMs: number;
  /** Attempts in all (1: no retry). */
  attempts: number;
  /** Wait before the first retry (ms); doubled for each further one. */
  backoffMs: number;
  /**
   * Which failures are tried again. By default timeouts, unexpected errors (`error`) and TaskErrors thrown
   * with `retryable: true`; `retryOn` adds codes to these; `retryOnly` replaces them (just these codes).
   */
  retryOn?: string[];
  retryOnly?: string[];
  /** The compensating task started when this one is cancelled after an attempt began (`on_cancel`). */
  onCancel?: { task: string };
}

export const DEFAULT_TASK_POLICY: TaskPolicy = { timeoutMs: 30_000, attempts: 3, backoffMs: 1_000 };

/** The codes the runner itself gives. */
export const TASK_CODES = {
  timeout: 'timeout',
  unknown: 'unknown_task',
  invalidInput: 'invalid_input',
  invalidResult: 'invalid_result',
  error: 'error',
  cancelled: 'cancelled',
} as const;
