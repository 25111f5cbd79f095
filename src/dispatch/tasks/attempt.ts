/**
 * One attempt of a task: its input checked against the task's schema, its function run under the attempt's
 * deadline (the AbortSignal fires at the deadline, on cancel and on shutdown), its result checked, and
 * anything thrown turned into a failure with a code the flow can route on.
 */
import pino, { type Logger } from 'pino';
import type { Job } from '../../client/scheduler/types.ts';
import type { Clock } from '../../store/ports/clock.ts';
import type { TaskRow } from '../../store/ports/tasks.ts';
import type { CallGateway } from '../dispatcher.ts';
import { droppedFields } from './input-fields.ts';
import {
  DEFAULT_TASK_POLICY,
  TASK_CODES,
  type TaskContext,
  type TaskDefinition,
  TaskError,
  type TaskPolicy,
  type TaskSpec,
} from './task.ts';

/** What an attempt needs from the runner. */
export interface AttemptOptions {
  tasks: Readonly<Record<string, TaskDefinition>>;
  /** The deadline and "typing…" run on it. */
  clock: Clock;
  gateway?: CallGateway | undefined;
  typingEveryMs?: number;
  logger?: Logger | undefined;
}

type Failure = { code: string; message: string; retryable: boolean };
/** How an attempt ended. */
export type Settled = { ok: true; result: unknown } | { ok: false; error: Failure };

const silent = pino({ enabled: false });

/** The task row's policy with the defaults filled in. */
export function policyOf(row: TaskRow): TaskPolicy {
  return { ...DEFAULT_TASK_POLICY, ...(JSON.parse(row.policy) as Partial<TaskPolicy>) };
}

/** Results are stored with the task and in the conversation's snapshot: JSON, and not too big. */
export const MAX_RESULT_BYTES = 256 * 1024;

function storableProblem(result: unknown): string | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(result ?? null);
  } catch (error) {
    return `is not JSON (${(error as Error).message}): return plain data`;
  }
  const bytes = Buffer.byteLength(json ?? 'null');
  return bytes > MAX_RESULT_BYTES
    ? `is ${Math.round(bytes / 1024)} KB, over ${MAX_RESULT_BYTES / 1024} KB: it goes into the conversation's snapshot; keep big data in your system and return its id`
    : undefined;
}

/** Per registry's tasks: the task, step and fields already warned about (once each, not per attempt). */
const warned = new WeakMap<object, Set<string>>();

/**
 * Input fields the task's schema would drop without a word (a misspelt optional field): a warning with the
 * step and the task, once per task, step and fields in this process (the same flow version starts the
 * same fields), so that a typo is seen in the logs, never lost in silence. `botflow check` reports them too.
 */
function warnDropped(row: TaskRow, schema: unknown, input: unknown, o: AttemptOptions): void {
  const dropped = droppedFields(schema, input);
  if (dropped.length === 0 || !o.logger) return;
  const step = row.ref.replace(/:task$/, '');
  const key = `${row.name}\n${step}\n${dropped.join(',')}`;
  const seen = warned.get(o.tasks) ?? new Set<string>();
  warned.set(o.tasks, seen);
  if (seen.has(key)) return;
  seen.add(key);
  o.logger.warn(
    { task: row.name, step, fields: dropped, conversation: row.conversationKey },
    `task "${row.name}" started at step "${step}" with input field(s) its schema does not name: ${dropped.map((f) => `"${f}"`).join(', ')} (dropped: the task never sees them). Fix the step's input: (botflow check shows where)`,
  );
}

/** One attempt: input checked, the function run under its deadline, the result checked. */
export async function runAttempt(
  row: TaskRow,
  attempt: number,
  controller: AbortController,
  o: AttemptOptions,
  cancelled?: TaskContext['cancelled'],
): Promise<Settled> {
  const policy = policyOf(row);
  const definition = Object.hasOwn(o.tasks, row.name) ? o.tasks[row.name] : undefined;
  if (!definition) {
    const known = Object.keys(o.tasks).join(', ') || 'none';
    return fail(TASK_CODES.unknown, `no task "${row.name}" in the registry (registered: ${known})`, false);
  }
  const spec = (typeof definition === 'function' ? { run: definition } : definition) as unknown as TaskSpec;
  let input: unknown = JSON.parse(row.input);
  if (spec.input) {
    warnDropped(row, spec.input, input, o);
    const parsed = spec.input.safeParse(input);
    if (!parsed.success)
      return fail(TASK_CODES.invalidInput, `input of task "${row.name}": ${parsed.error.message}`, false);
    input = parsed.data;
  }
  const deadline = o.clock.now() + policy.timeoutMs;
  const timeout = o.clock.setTimer(
    () =>
      controller.abort(
        new TaskError(TASK_CODES.timeout, `no result within ${policy.timeoutMs} ms`, { retryable: true }),
      ),
    policy.timeoutMs,
  );
  const stopTyping = typing(row, o);
  const scope = JSON.parse(row.scope) as { vars: Record<string, unknown>; locale?: string };
  // (A compensation's scope also names the task it compensates: `compensates`, read by the runner.)
  const ctx: TaskContext = {
    signal: controller.signal,
    deadline,
    idempotencyKey: row.idempotencyKey,
    attempt,
    // Made when the task first logs: most never do, and a child logger is not free.
    get logger() {
      const logger = (o.logger ?? silent).child({
        task: row.name,
        taskId: row.id,
        attempt,
        conversation: row.conversationKey,
      });
      Object.defineProperty(this, 'logger', { value: logger });
      return logger;
    },
    ...(cancelled ? { cancelled } : {}),
    scope: {
      conversation: row.conversationKey,
      ...(row.chatId !== null ? { chatId: row.chatId } : {}),
      vars: scope.vars ?? {},
      ...(scope.locale ? { locale: scope.locale } : {}),
    },
  };
  try {
    const aborted = new Promise<never>((_, reject) => {
      if (controller.signal.aborted) reject(controller.signal.reason);
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    aborted.catch(() => {});
    let result = await Promise.race([Promise.resolve().then(() => spec.run(input as never, ctx)), aborted]);
    if (spec.result) {
      const parsed = spec.result.safeParse(result);
      if (!parsed.success)
        return fail(TASK_CODES.invalidResult, `result of task "${row.name}": ${parsed.error.message}`, false);
      result = parsed.data;
    }
    const problem = storableProblem(result);
    if (problem) return fail(TASK_CODES.invalidResult, `result of task "${row.name}" ${problem}`, false);
    return { ok: true, result };
  } catch (error) {
    if (controller.signal.aborted) return failureOf(controller.signal.reason);
    return failureOf(error);
  } finally {
    o.clock.clearTimer(timeout);
    stopTyping();
  }
}

/** Shows "typing…" in the conversation's chat while the task runs; returns the function that stops it. */
function typing(row: TaskRow, o: AttemptOptions): () => void {
  const gateway = o.gateway;
  if (!gateway || row.chatId === null) return () => {};
  const every = o.typingEveryMs ?? 4_000;
  // Cosmetic, so it never holds up a reply: the lowest service class, dropped when it could not go out
  // before the next one is due, and withdrawn as soon as the task ends.
  const done = new AbortController();
  const send = () => {
    const job = {
      op: 'sendAction',
      args: { chat_id: row.chatId, action: 'typing_on' },
      chatId: row.chatId,
      priority: 'bulk',
      ttlMs: every,
      signal: done.signal,
    } as Job;
    gateway.submit(job).catch(() => {}); // a lost "typing…" loses nothing
  };
  let timer: unknown;
  const again = () => {
    timer = o.clock.setTimer(() => {
      send();
      if (!done.signal.aborted) again();
    }, every);
  };
  send();
  again();
  return () => {
    o.clock.clearTimer(timer);
    done.abort();
  };
}

function fail(code: string, message: string, retryable: boolean): Settled {
  return { ok: false, error: { code, message, retryable } };
}

export function plain(error: { code: string; message: string }): { code: string; message: string } {
  return { code: error.code, message: error.message };
}

/** A thrown value as a failure: TaskErrors keep their code; anything else is an unexpected (retryable) `error`. */
function failureOf(error: unknown): Settled {
  if (error instanceof TaskError) return fail(error.code, error.message, error.retryable);
  // `fetch failed` says little: its cause says which request and why (refused, not faked in a transcript).
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  const message = error instanceof Error ? `${error.name}: ${error.message}${cause}` : String(error);
  return fail(TASK_CODES.error, message, true);
}

/**
 * Whether a failure is tried again: timeouts, unexpected errors and TaskErrors thrown `retryable`, plus the
 * codes of `retryOn`; with `retryOnly`, exactly its codes. Cancellation never is.
 */
export function retryable(error: Failure | { code: string; message: string }, policy: TaskPolicy): boolean {
  if (error.code === TASK_CODES.cancelled) return false;
  if (policy.retryOnly) return policy.retryOnly.includes(error.code);
  if (error.code === TASK_CODES.timeout || error.code === TASK_CODES.error) return true;
  if (policy.retryOn?.includes(error.code)) return true;
  return 'retryable' in error ? error.retryable : false;
}

/** What to do with an ended attempt: nothing (cancelled), run it again later, or settle the task. */
export type Verdict =
  | { kind: 'cancelled'; error: { code: string; message: string } }
  | { kind: 'retry'; runAfter: number; error: { code: string; message: string } }
  | {
      kind: 'settle';
      finish: { status: 'done'; result: string } | { status: 'failed'; error: string };
      /** The `task_result` event's payload, for the conversation's inbox. */
      payload: string;
    };

/** Decides what an ended attempt leads to (the same rules on SQLite and PostgreSQL). */
export function verdictOf(row: TaskRow, attempt: number, outcome: Settled, now: number): Verdict {
  if (!outcome.ok && outcome.error.code === TASK_CODES.cancelled)
    return { kind: 'cancelled', error: plain(outcome.error) };
  const policy = policyOf(row);
  if (!outcome.ok && attempt < policy.attempts && retryable(outcome.error, policy))
    return {
      kind: 'retry',
      runAfter: now + policy.backoffMs * 2 ** (attempt - 1),
      error: plain(outcome.error),
    };
  return {
    kind: 'settle',
    finish: outcome.ok
      ? { status: 'done', result: JSON.stringify(outcome.result ?? null) }
      : { status: 'failed', error: JSON.stringify(plain(outcome.error)) },
    payload: JSON.stringify({
      taskId: row.id,
      task: row.name,
      ref: row.ref,
      stepInstance: row.stepInstance,
      revision: row.revision,
      attempts: attempt,
      ok: outcome.ok,
      ...(outcome.ok ? { result: outcome.result ?? null } : { error: plain(outcome.error) }),
    }),
  };
}

/** The id of the task a compensating task compensates (its scope says), if it is one. */
export function compensatesOf(row: TaskRow): number | undefined {
  const id = (JSON.parse(row.scope) as { compensates?: unknown }).compensates;
  return typeof id === 'number' ? id : undefined;
}

/** What a compensating task is told of the task it compensates (`ctx.cancelled`). */
export function cancelledOf(original: TaskRow | undefined): TaskContext['cancelled'] {
  if (!original) return undefined;
  return {
    task: original.name,
    input: JSON.parse(original.input) as unknown,
    attempts: original.attempts,
    ...(original.result !== null ? { result: JSON.parse(original.result) as unknown } : {}),
  };
}

/** An ended attempt of a task cancelled meanwhile, as the row records it. */
export function lateOutcome(outcome: Settled): { result?: string; error?: string } {
  return outcome.ok
    ? { result: JSON.stringify(outcome.result ?? null) }
    : { error: JSON.stringify(plain(outcome.error)) };
}
