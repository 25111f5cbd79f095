/**
 * The calls of a step that handles a press: the answer to the pressed callback goes first, once (several
 * answers merge into one; none gives an empty one), and a notification nobody would see is also sent as a
 * message (visible-answer.ts).
 */
import type { PlanContext, PlannedCall } from './effects.ts';
import { withVisibleAnswer } from './visible-answer.ts';

/** A press is answered once: several answers to it (a notification, an edit carried by the answer) become one. */
function mergeAnswers(calls: PlannedCall[], callbackId: string): PlannedCall[] {
  const answers = calls.filter((c) => c.op === 'answerCallback' && c.args.callback_id === callbackId);
  if (answers.length < 2) return calls;
  const merged: PlannedCall = { ...answers[0]!, args: Object.assign({}, ...answers.map((a) => a.args)) };
  return calls.flatMap((c) => (c === answers[0] ? [merged] : answers.includes(c) ? [] : [c]));
}

/** Puts the answer to the pressed callback first, adding an empty answer when the flow gave none. */
function answerFirst(planned: PlannedCall[], callback: NonNullable<PlanContext['callback']>): PlannedCall[] {
  const callbackId = callback.id;
  const calls = mergeAnswers(planned, callbackId);
  const index = calls.findIndex((c) => c.op === 'answerCallback' && c.args.callback_id === callbackId);
  if (index === 0) return calls;
  if (index > 0) return [calls[index]!, ...calls.slice(0, index), ...calls.slice(index + 1)];
  return [
    {
      kind: 'api',
      op: 'answerCallback',
      args: { callback_id: callbackId },
      orderKey: `cb:${callbackId}`,
      priority: 'callback',
      ...(callback.chatId !== undefined ? { chatId: callback.chatId } : {}),
    },
    ...calls,
  ];
}

/** The calls `planned` for a press of `callback` by `userId`, answered first and visibly. */
export function pressCalls(
  planned: PlannedCall[],
  callback: NonNullable<PlanContext['callback']>,
  userId: number | undefined,
): PlannedCall[] {
  return withVisibleAnswer(answerFirst(planned, callback), { chatId: callback.chatId, userId });
}
