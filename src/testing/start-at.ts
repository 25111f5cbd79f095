/**
 * `start_at`: puts a conversation into a step with a given context, as if the dialog had got there, so a
 * transcript can test a step deep in a flow (or a flow only a campaign starts) without replaying the turns
 * before it. A top-level step is entered as the playground's "Start here" enters it (engine/jump.ts): its
 * message is sent with its buttons, its reminders are armed, its task started. That entry happens before
 * the first turn: the transcript's turns do not list its calls, and the first turn answers the step (or
 * presses its buttons). A step inside a called flow (`__call_help>explain`) cannot be entered from outside:
 * the session is only placed there (no message, no reminders).
 */
import { jumpToStep, placeSession } from '../engine/jump.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { BotflowError } from '../errors/index.ts';
import { conversationKey, updatePlace } from '../inbox/keys.ts';
import type { SupportPort } from '../store/ports/support.ts';
import type { StartAt } from './transcript.ts';

/** Where the conversation was put, and whether the step is entered (its message sent) by the engine. */
export interface StartedAt {
  conversationKey: string;
  step: string;
  entered: boolean;
}

/**
 * Writes the session row on the step; for a top-level step also the jump that enters it (the engine runs it
 * on its next drain). `update` is the person's `bot_started` (held back from the engine).
 */
export function placeAtStep(
  support: SupportPort<true>,
  flow: FlowDefinition,
  update: unknown,
  at: StartAt,
  now: number,
): StartedAt {
  const key = conversationKey(update);
  const place = updatePlace(update);
  if (!key)
    throw new BotflowError(
      'BOTFLOW_TRANSCRIPT',
      'start_at: the sandbox produced no conversation for the person',
    );
  const locale = (update as { user_locale?: unknown } | undefined)?.user_locale;
  const where = {
    conversationKey: key,
    flow,
    step: at.step,
    vars: { ...at.context },
    ...(typeof place.userId === 'number' ? { userId: place.userId } : {}),
    ...(typeof locale === 'string' ? { locale } : {}),
  };
  const chatId = typeof place.chatId === 'number' ? place.chatId : null;
  const entered = !at.step.includes('>') && chatId !== null;
  try {
    if (entered) jumpToStep(support, { ...where, chatId }, now);
    else placeSession(support, { ...where, chatId }, now);
  } catch (error) {
    throw new BotflowError('BOTFLOW_TRANSCRIPT', `start_at: ${(error as Error).message}`);
  }
  return { conversationKey: key, step: at.step, entered };
}
