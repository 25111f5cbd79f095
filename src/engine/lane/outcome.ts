/** What planning an inbox event comes to: the outcome people and logs see, and the plan to commit. */
import type { Logger } from 'pino';
import type { InboxEvent } from '../../store/engine-inbox.ts';
import type { WriteOp, WrittenSession } from '../commit/write-plan.ts';
import type { EventMeta, FlowDefinition } from '../step/contract.ts';
import type { StepResult } from '../step/step.ts';
import type { CachedSession } from './session-cache.ts';

/** What became of one inbox event. */
export interface EventOutcome {
  inboxId: number;
  kind: string;
  conversationKey: string | null;
  status: 'done' | 'ignored' | 'failed';
  reason?: string;
  /** The session after the event, when a step was committed. */
  session?: { flowId: string; revision: number; stateValue: string; status: string };
  calls: number;
  /** Tasks the step started or cancelled (absent when none). */
  tasks?: number;
  error?: unknown;
}

/** One planned event: its outcome if the writes commit, the writes, and the session they leave. */
export interface EventPlan {
  row: InboxEvent;
  outcome: EventOutcome;
  ops: WriteOp[];
  /** The conversation's session after the event, when the event wrote it (for the cache). */
  written?: CachedSession;
}

/** An event the engine leaves alone, and why (a stale timer, an update no flow handles…). */
export type Skipped = { ignored: string };
export const skip = (reason: string): Skipped => ({ ignored: reason });

/**
 * The plan of an event the engine left alone: writes recorded before the decision to ignore it (answering
 * a stale press, telling operators a person left) stand, and count, so that the dispatcher is woken.
 */
export function ignoredPlan(row: InboxEvent, key: string | null, reason: string, ops: WriteOp[]): EventPlan {
  const calls = ops.filter((op) => op.kind === 'call').length;
  const outcome: EventOutcome = {
    inboxId: row.id,
    kind: row.kind,
    conversationKey: key,
    status: 'ignored',
    reason,
    calls,
  };
  return { row, outcome, ops };
}

/** What a step did: the session it left and the calls it planned. */
export type Ran = Pick<EventOutcome, 'session' | 'calls' | 'tasks'>;
export type Planned = Pick<EventOutcome, 'session' | 'calls' | 'tasks' | 'reason'> | Skipped;

/** The outcome's summary of a written session. */
export function summary(written: WrittenSession): NonNullable<EventOutcome['session']> {
  const { row } = written;
  return { flowId: row.flowId, revision: row.revision, stateValue: row.stateValue, status: row.status };
}

/** A flow that failed at run time and recovered is still a bug to fix: logged with where the step is written. */
export function reportFailure(
  logger: Logger | undefined,
  key: string,
  flow: FlowDefinition,
  result: StepResult,
): void {
  const f = result.failure;
  if (!f) return;
  logger?.error(
    {
      conversation: key,
      flow: flow.id,
      step: f.step,
      where: f.where,
      recovery: f.recovery,
      reason: f.message,
    },
    `flow "${flow.id}" failed at step ${f.step ?? '?'}${f.where ? ` (${f.where})` : ''}: ${f.message}; ` +
      (f.recovery === 'route'
        ? 'its on_error route was taken'
        : 'the person got an apology and the flow ended'),
  );
}

/** An error as one line, for an outcome's reason. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** What a step did, for its outcome. */
export function ranOf(result: StepResult, written: WrittenSession | undefined): Ran {
  return {
    calls: result.calls.length,
    ...(result.tasks.length > 0 ? { tasks: result.tasks.length } : {}),
    ...(written ? { session: summary(written) } : {}),
  };
}

/** The facts of an internal event, from the session it is for. */
export function sessionMeta(session: CachedSession, now: number): EventMeta {
  const { row } = session;
  return {
    conversation: row.conversationKey,
    ...(row.chatId !== null ? { chatId: row.chatId } : {}),
    ...(row.userId !== null ? { userId: row.userId } : {}),
    ...(row.locale !== null ? { locale: row.locale } : {}),
    now,
  };
}
