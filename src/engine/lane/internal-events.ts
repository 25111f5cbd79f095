/**
 * The engine's own inbox events (a due timer, an API call's result, a task's result, a designer's jump)
 * as the flow event a running session receives, or why the session does not get it. Pure.
 */
import type { SessionRow } from '../../store/sessions.ts';
import { type EventMeta, type FlowEvent, JUMP_EVENT_KIND, TASK_RESULT_KIND } from '../step/contract.ts';

type Failure = { code: string; message: string };

/** The flow event of an internal inbox row of kind `kind`, for the active session `session`. */
export function internalEvent(
  kind: string,
  payload: Record<string, unknown>,
  session: Pick<SessionRow, 'stepInstance' | 'startedRevision'>,
  meta: EventMeta,
): FlowEvent | { skip: string } {
  switch (kind) {
    case 'timer':
      if (payload.stepInstance !== session.stepInstance)
        return { skip: 'the step that armed the timer was left' };
      return { type: 'timer', name: String(payload.name), meta: { ...meta, now: Number(payload.fireAt) } };
    case 'effect_result': {
      if (Number(payload.revision) < session.startedRevision)
        return { skip: 'it belongs to an earlier session' };
      const ref = String(payload.ref);
      return payload.ok
        ? { type: 'effect.done', ref, result: payload.result, meta }
        : { type: 'effect.failed', ref, error: payload.error as Failure, meta };
    }
    case TASK_RESULT_KIND: {
      // A result for a step the conversation has left (a /cancel, an idle timeout) is never applied to the
      // step it is on now: the task row keeps the result, the event is ignored with the reason.
      if (payload.stepInstance !== session.stepInstance)
        return { skip: `task ${String(payload.task)} finished after the step that started it was left` };
      const base = { task: String(payload.task), ref: String(payload.ref), meta };
      return payload.ok
        ? { type: 'task.done', ...base, result: payload.result }
        : { type: 'task.failed', ...base, error: payload.error as Failure };
    }
    case JUMP_EVENT_KIND:
      return {
        type: 'botflow.jump',
        step: String(payload.step),
        vars: (payload.vars ?? {}) as Record<string, unknown>,
        meta,
      };
    default:
      return { skip: `unknown inbox event kind "${kind}"` };
  }
}
