/**
 * `start_at`: puts a conversation into a step with a given context, as if the dialog had got there, so a
 * transcript can test a step deep in a flow without replaying the turns before it. The step's entry is
 * not run: its prompt is not sent and its reminders are not armed; the first turn answers the step.
 */
import type Database from 'better-sqlite3';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { storeSnapshot } from '../engine/step/step.ts';
import { conversationKey, updatePlace } from '../inbox/keys.ts';
import { SessionStore } from '../store/sessions.ts';
import type { StartAt } from './transcript.ts';

/** `a>b` (the step key in reports) → `{ a: 'b' }` (the XState state value). */
function stateValueOf(step: string): unknown {
  const parts = step.split('>');
  let value: unknown = parts.pop();
  while (parts.length) value = { [parts.pop()!]: value };
  return value;
}

/** Writes the session row; `update` is the person's `bot_started` (held back from the engine). */
export function placeAtStep(
  db: Database.Database,
  flow: FlowDefinition,
  update: unknown,
  at: StartAt,
  now: number,
): { conversationKey: string; step: string } {
  const key = conversationKey(update);
  const place = updatePlace(update);
  if (!key) throw new Error('start_at: the sandbox produced no conversation for the person');
  let snapshot: ReturnType<typeof storeSnapshot>;
  try {
    const resolved = flow.machine.resolveState({
      value: stateValueOf(at.step) as never,
      context: { vars: { ...at.context }, retries: 0, at: at.step.split('>')[0] } as never,
    });
    snapshot = storeSnapshot(flow.machine, resolved);
  } catch (error) {
    const steps = Object.keys((flow.machine.root as { states: Record<string, unknown> }).states).filter(
      (s) => !s.startsWith('__'),
    );
    throw new Error(
      `start_at: flow "${flow.id}" has no step "${at.step}" (${(error as Error).message}); steps: ${steps.join(', ')}`,
    );
  }
  new SessionStore(db).save(
    {
      conversationKey: key,
      flowId: flow.id,
      flowVersion: flow.version,
      status: 'active',
      stateValue: JSON.stringify(snapshot.value),
      snapshot: JSON.stringify(snapshot),
      revision: 1,
      stepInstance: 1,
      startedRevision: 1,
      chatId: typeof place.chatId === 'number' ? place.chatId : null,
      userId: typeof place.userId === 'number' ? place.userId : null,
      locale: null,
      startedAt: now,
      updatedAt: now,
    },
    undefined,
  );
  return { conversationKey: key, step: at.step };
}
