/**
 * A designer's jump to a step (the playground's "start here"): the conversation is put on a flow's step
 * with chosen variables, and a `botflow.jump` event then enters that step as the dialog would have: its
 * prompt is sent and its reminders armed. Whatever ran before in the conversation ends (its timers and
 * unsent calls too).
 */
import type { Answer } from '../store/ports/engine.ts';
import { andThen } from '../store/ports/index.ts';
import type { PlacedSession, SupportPort } from '../store/ports/support.ts';
import { type FlowDefinition, JUMP_EVENT_KIND } from './step/contract.ts';
import { StepError, storeSnapshot } from './step/step.ts';

/** Where the jump lands and for whom. */
export interface Jump {
  conversationKey: string;
  flow: FlowDefinition;
  /** A top-level step id of the flow. */
  step: string;
  vars: Record<string, unknown>;
  /** The conversation's chat and person, as the platform names them (the prompt goes to `chatId`). */
  chatId: number;
  userId?: number;
  locale?: string;
}

/** `a>b` (a step inside a called flow, as reports write it) → `{ a: 'b' }` (the XState state value). */
function stateValueOf(step: string): unknown {
  const parts = step.split('>');
  let value: unknown = parts.pop();
  while (parts.length) value = { [parts.pop()!]: value };
  return value;
}

/** The session row of `place` (not yet numbered); throws StepError for a step the flow does not have. */
export function placement(place: Omit<Jump, 'chatId'> & { chatId: number | null }): PlacedSession {
  const { flow } = place;
  let snapshot: ReturnType<typeof storeSnapshot>;
  try {
    snapshot = storeSnapshot(
      flow.machine,
      flow.machine.resolveState({
        value: stateValueOf(place.step),
        context: {
          vars: { ...place.vars },
          retries: 0,
          at: place.step.split('>')[0],
          // The person's locale, as a flow started by their update would have it: texts in their language.
          ...(place.locale ? { locale: place.locale } : {}),
        },
      } as never),
    );
  } catch (error) {
    throw new StepError(
      `flow "${flow.id}" has no step "${place.step}" (${(error as Error).message}); steps: ${stepsOf(flow).join(', ')}`,
    );
  }
  return {
    conversationKey: place.conversationKey,
    flowId: flow.id,
    flowVersion: flow.version,
    stateValue: JSON.stringify(snapshot.value),
    snapshot: JSON.stringify(snapshot),
    step: place.step,
    chatId: place.chatId,
    userId: place.userId ?? null,
    locale: place.locale ?? null,
  };
}

/** The top-level steps of a flow, in order. */
function stepsOf(flow: FlowDefinition): string[] {
  return Object.keys((flow.machine.root as { states: Record<string, unknown> }).states).filter(
    (s) => !s.startsWith('__'),
  );
}

/**
 * Writes the conversation's session on `place.step` with `place.vars`, without entering the step (no
 * prompt, no timers), over whatever session it had; returns the new revision. Throws StepError for a
 * step the flow does not have. Transcripts' `start_at` uses it alone; a jump then enters the step.
 */
export function placeSession<Sync extends boolean>(
  support: SupportPort<Sync>,
  place: Omit<Jump, 'chatId'> & { chatId: number | null },
  now: number,
): Answer<Sync, number> {
  return support.placeSession(placement(place), now);
}

/** Writes the session at the step and queues the event that enters it; throws StepError for an unknown step. */
export function jumpToStep<Sync extends boolean>(
  support: SupportPort<Sync>,
  jump: Jump,
  now: number,
): Answer<Sync, void> {
  const { flow } = jump;
  const steps = stepsOf(flow);
  if (!steps.includes(jump.step))
    throw new StepError(`flow "${flow.id}" has no step "${jump.step}"; steps: ${steps.join(', ')}`);
  // The session starts empty on the step; the jump event brings the variables as it enters it.
  const written = support.placeSession(placement({ ...jump, vars: {} }), now, {
    kind: JUMP_EVENT_KIND,
    payload: JSON.stringify({ step: jump.step, vars: jump.vars }),
    reason: `jumped to ${flow.id} › ${jump.step}`,
  });
  return andThen(written, () => undefined) as Answer<Sync, void>;
}
