/**
 * `start_at`: puts a conversation into a step with a given context, as if the dialog had got there, so a
 * transcript can test a step deep in a flow without replaying the turns before it. The step's entry is
 * not run: its prompt is not sent and its reminders are not armed; the first turn answers the step.
 */
import { placeSession } from '../engine/jump.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { BotflowError } from '../errors/index.ts';
import { conversationKey, updatePlace } from '../inbox/keys.ts';
import type { SupportPort } from '../store/ports/support.ts';
import type { StartAt } from './transcript.ts';

/** Writes the session row; `update` is the person's `bot_started` (held back from the engine). */
export function placeAtStep(
  support: SupportPort<true>,
  flow: FlowDefinition,
  update: unknown,
  at: StartAt,
  now: number,
): { conversationKey: string; step: string } {
  const key = conversationKey(update);
  const place = updatePlace(update);
  if (!key)
    throw new BotflowError(
      'BOTFLOW_TRANSCRIPT',
      'start_at: the sandbox produced no conversation for the person',
    );
  try {
    placeSession(
      support,
      {
        conversationKey: key,
        flow,
        step: at.step,
        vars: { ...at.context },
        chatId: typeof place.chatId === 'number' ? place.chatId : null,
        ...(typeof place.userId === 'number' ? { userId: place.userId } : {}),
      },
      now,
    );
  } catch (error) {
    throw new BotflowError('BOTFLOW_TRANSCRIPT', `start_at: ${(error as Error).message}`);
  }
  return { conversationKey: key, step: at.step };
}
