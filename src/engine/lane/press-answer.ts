/** The answer to a press no step takes (stale, forged): the person must not watch a spinner. */
import type { WritePlan } from '../commit/write-plan.ts';
import type { PlannedCall } from '../step/effects.ts';
import type { Press } from '../step/events.ts';
import { withVisibleAnswer } from '../step/visible-answer.ts';

/** Records the answer to `press` (with `text` as its notification) in `plan`, outside any step. */
export function answerAlone(
  plan: WritePlan,
  key: string,
  revision: number,
  press: Press,
  text: string | undefined,
  now: number,
): void {
  const call: PlannedCall = {
    kind: 'api',
    op: 'answerCallback',
    args: { callback_id: press.callbackId, ...(text ? { notification: text } : {}) },
    orderKey: `cb:${press.callbackId}`,
    priority: 'callback',
    ...(press.meta.chatId !== undefined ? { chatId: press.meta.chatId } : {}),
  };
  const [, shown] = withVisibleAnswer([call], { chatId: press.meta.chatId, userId: press.meta.userId });
  plan.call(key, revision, 0, call, now, `answer:${press.callbackId}`);
  if (shown) plan.call(key, revision, 1, shown, now, `answer-shown:${press.callbackId}`);
}
