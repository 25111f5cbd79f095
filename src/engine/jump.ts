/**
 * A designer's jump to a step (the playground's "start here"): the conversation is put on a flow's step
 * with chosen variables, and a `botflow.jump` event then enters that step as the dialog would have: its
 * prompt is sent and its reminders armed. Whatever ran before in the conversation ends (its timers and
 * unsent calls too).
 */
import type Database from 'better-sqlite3';
import { EngineInbox } from '../store/engine-inbox.ts';
import { OutboxStore } from '../store/outbox.ts';
import { SessionStore } from '../store/sessions.ts';
import { StepLogStore } from '../store/step-log.ts';
import { TaskStore } from '../store/tasks.ts';
import { TimerStore } from '../store/timers.ts';
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

/**
 * Writes the conversation's session on `place.step` with `place.vars`, without entering the step (no
 * prompt, no timers), over whatever session it had; returns the new revision. Throws StepError for a
 * step the flow does not have. Transcripts' `start_at` uses it alone; a jump then enters the step.
 */
export function placeSession(
  db: Database.Database,
  place: Omit<Jump, 'chatId'> & { chatId: number | null },
  now: number,
): number {
  const { flow, conversationKey: key } = place;
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
    const steps = Object.keys((flow.machine.root as { states: Record<string, unknown> }).states).filter(
      (s) => !s.startsWith('__'),
    );
    throw new StepError(
      `flow "${flow.id}" has no step "${place.step}" (${(error as Error).message}); steps: ${steps.join(', ')}`,
    );
  }
  const sessions = new SessionStore(db);
  const prior = sessions.get(key);
  const revision = (prior?.revision ?? 0) + 1;
  sessions.save(
    {
      conversationKey: key,
      flowId: flow.id,
      flowVersion: flow.version,
      status: 'active',
      stateValue: JSON.stringify(snapshot.value),
      snapshot: JSON.stringify(snapshot),
      revision,
      stepInstance: revision,
      startedRevision: revision,
      chatId: place.chatId,
      userId: place.userId ?? null,
      locale: place.locale ?? null,
      startedAt: now,
      updatedAt: now,
    },
    prior?.revision,
  );
  // The funnel sees a new session on the step (a jump is a session of its own).
  new StepLogStore(db).append({
    conversationKey: key,
    stepInstance: revision,
    sessionRevision: revision,
    flowId: flow.id,
    flowVersion: flow.version,
    step: place.step,
    event: 'enter',
    n: 1,
    at: now,
  });
  return revision;
}

/** Writes the session at the step and queues the event that enters it; throws StepError for an unknown step. */
export function jumpToStep(db: Database.Database, jump: Jump, now: number): void {
  const { flow, conversationKey: key } = jump;
  const steps = Object.keys((flow.machine.root as { states: Record<string, unknown> }).states).filter(
    (s) => !s.startsWith('__'),
  );
  if (!steps.includes(jump.step))
    throw new StepError(`flow "${flow.id}" has no step "${jump.step}"; steps: ${steps.join(', ')}`);
  const timers = new TimerStore(db);
  const outbox = new OutboxStore(db);
  const inbox = new EngineInbox(db);
  db.transaction(() => {
    timers.settleAll(key, 'cancelled', `jumped to ${flow.id} › ${jump.step}`, now);
    outbox.dropPending(key, `jumped to ${flow.id} › ${jump.step}`, now);
    new TaskStore(db).cancelAll(key, `jumped to ${flow.id} › ${jump.step}`, now);
    // The session starts empty on the step; the jump event brings the variables as it enters it.
    const revision = placeSession(db, { ...jump, vars: {} }, now);
    inbox.add({
      kind: JUMP_EVENT_KIND,
      dedupeKey: `jump:${key}:${revision}`,
      conversationKey: key,
      payload: JSON.stringify({ step: jump.step, vars: jump.vars }),
      receivedAt: now,
    });
  })();
}
