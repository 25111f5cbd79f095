/**
 * What the task runner does around the store: the outcomes it tells (`TaskOutcome`), ended attempts as
 * the store records them, and running a port's answer at once when it is a value (SQLite) or when it
 * comes (PostgreSQL).
 */
import type { Logger } from 'pino';
import type { MaybePromise } from '../../store/ports/index.ts';
import type { AttemptEnd, Recorded, TaskRow } from '../../store/ports/tasks.ts';
import { lateOutcome, plain, type Settled, type Verdict } from './attempt.ts';

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

/** An attempt that ended, to be recorded; `recorded` resolves its `done`. */
export type Ended = {
  row: TaskRow;
  attempt: number;
  outcome: Settled;
  started: number;
  recorded: () => void;
};

/** Runs `run`, then `done` with its value or what it threw, at once when the value is not a promise. */
export function settle<T>(
  run: () => MaybePromise<T>,
  done: (result: { value: T } | { error: unknown }) => void,
) {
  let value: MaybePromise<T>;
  try {
    value = run();
  } catch (error) {
    done({ error });
    return;
  }
  if (value instanceof Promise)
    value.then(
      (v) => done({ value: v }),
      (error: unknown) => done({ error }),
    );
  else done({ value });
}

/** Tells the listeners what became of a recorded attempt; true when its result went to the inbox. */
export function tell(
  e: Ended,
  verdict: Verdict,
  recorded: Recorded,
  now: number,
  o: { logger?: Logger | undefined; onOutcome?(outcome: TaskOutcome): void },
): boolean {
  const { row, attempt, outcome } = e;
  const base = {
    taskId: row.id,
    conversationKey: row.conversationKey,
    task: row.name,
    attempt,
    ms: now - e.started,
    input: JSON.parse(row.input) as unknown,
    ...(row.chatId !== null ? { chatId: row.chatId } : {}),
  };
  const error = verdict.kind === 'settle' ? undefined : verdict.error;
  if (recorded === 'cancelled') {
    // Cancelled meanwhile (its step was left): the outcome is kept on the row, nobody is told.
    o.onOutcome?.({ ...base, status: 'cancelled', ...(error ? { error } : {}) });
    return false;
  }
  if (recorded === 'retry') {
    o.logger?.warn({ taskId: row.id, task: row.name, attempt, error }, 'task attempt failed; trying again');
    o.onOutcome?.({ ...base, status: 'retry', ...(error ? { error } : {}) });
    return false;
  }
  if (!outcome.ok)
    o.logger?.warn(
      { taskId: row.id, task: row.name, attempt, error: plain(outcome.error) },
      'task failed for good',
    );
  o.onOutcome?.({
    ...base,
    status: outcome.ok ? 'done' : 'failed',
    ...(outcome.ok ? { result: outcome.result } : { error: plain(outcome.error) }),
  });
  return true;
}

/** An ended attempt as the store records it. */
export function endOf(e: Ended, verdict: Verdict): AttemptEnd {
  if (verdict.kind === 'cancelled') return { kind: 'aborted', row: e.row };
  if (verdict.kind === 'retry')
    return {
      kind: 'retry',
      row: e.row,
      runAfter: verdict.runAfter,
      error: JSON.stringify(verdict.error),
      late: lateOutcome(e.outcome),
    };
  return {
    kind: 'settle',
    row: e.row,
    finish: verdict.finish,
    payload: verdict.payload,
    late: lateOutcome(e.outcome),
  };
}
