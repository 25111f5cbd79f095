/**
 * A notification-only callback answer is accepted by the platform but not displayed by its clients
 * (spec, POST /answers). So that a person sees what a flow or a policy meant to tell them, such an
 * answer is followed by the same text as a message in the chat, unless the step already shows
 * something (sends or edits a message, or answers with a message).
 */
import type { PlannedCall } from './effects.ts';

const SHOWS_SOMETHING = new Set(['sendMessage', 'editMessage', 'upload_and_send']);

/** Where the text goes: the pressed message's chat, else the dialog of the person who pressed. */
export interface AnswerTarget {
  chatId?: number;
  userId?: number;
}

/** The text of a notification-only answer among `calls`, when nothing else in them shows the person anything. */
export function unseenNotification(calls: readonly PlannedCall[]): string | undefined {
  let text: string | undefined;
  for (const c of calls) {
    if (SHOWS_SOMETHING.has(c.op)) return undefined;
    if (c.op === 'answerCallback') {
      if (c.args.message) return undefined;
      if (typeof c.args.notification === 'string' && c.args.notification) text = c.args.notification;
    }
  }
  return text;
}

/** `calls` plus, after them, a message carrying a notification nobody would see; unchanged otherwise. */
export function withVisibleAnswer(calls: PlannedCall[], target: AnswerTarget): PlannedCall[] {
  const text = unseenNotification(calls);
  if (text === undefined) return calls;
  const to =
    target.chatId !== undefined
      ? { chat_id: target.chatId }
      : target.userId !== undefined
        ? { user_id: target.userId }
        : undefined;
  if (!to) return calls;
  return [
    ...calls,
    {
      kind: 'api',
      op: 'sendMessage',
      args: { ...to, text },
      orderKey: target.chatId !== undefined ? `chat:${target.chatId}` : `user:${target.userId}`,
      priority: 'reply',
      ...(target.chatId !== undefined ? { chatId: target.chatId } : {}),
    },
  ];
}
