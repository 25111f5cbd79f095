/**
 * What a person sees in a chat: the messages with their current text, keyboards and attachments, who
 * sent each, and the notifications (callback answers) they were shown there.
 */
import type { Platform } from '../platform.ts';
import { chatView, commentView, messageView } from '../views.ts';
import { memberChat } from './people-chats.ts';

/** One message as a person sees it. */
export interface SeenMessage {
  message_id: string;
  /** `bot`, `me` or `other`. */
  from: 'bot' | 'me' | 'other';
  sender_id: number;
  timestamp: number;
  text?: string;
  edited: boolean;
  /** The inline keyboard's rows, when the message has one. */
  keyboard?: unknown[][];
  /** Attachments other than the keyboard. */
  attachments: unknown[];
  /** Comments under a channel post. */
  comments?: unknown[];
  /** The full message object, as the Bot API would return it. */
  message: Record<string, unknown>;
}

export interface PersonView {
  chat: Record<string, unknown>;
  messages: SeenMessage[];
  notifications: { text: string; message_id?: string; timestamp: number }[];
  muted_until?: number;
  bot_stopped?: boolean;
}

/** The chat `chatId` (or the person's dialog with the bot when omitted) as `userId` sees it. */
export function personView(p: Platform, userId: number, chatId: number | undefined): PersonView {
  const id = chatId ?? p.data.dialogs[String(userId)];
  if (id === undefined) {
    p.user(userId);
    return { chat: {}, messages: [], notifications: [] };
  }
  const chat = memberChat(p, userId, id);
  const messages = chat.mids.flatMap((mid): SeenMessage[] => {
    const m = p.data.messages[mid];
    if (!m) return [];
    const kb = m.attachments?.find((a) => a.type === 'inline_keyboard') as
      | { payload: { buttons: unknown[][] } }
      | undefined;
    const comments =
      chat.type === 'channel'
        ? Object.values(p.data.comments)
            .filter((c) => c.post_mid === mid)
            .sort((a, b) => a.seq - b.seq)
            .map((c) => commentView(p.data, c))
        : undefined;
    return [
      {
        message_id: m.mid,
        from: m.sender_id === p.botId ? 'bot' : m.sender_id === userId ? 'me' : 'other',
        sender_id: m.sender_id,
        timestamp: m.timestamp,
        text: m.text,
        ...(m.markup?.length ? { markup: m.markup } : {}),
        edited: m.edited_at !== undefined,
        keyboard: kb?.payload.buttons,
        attachments: (m.attachments ?? []).filter((a) => a.type !== 'inline_keyboard'),
        ...(comments ? { comments } : {}),
        message: messageView(p.data, m),
      },
    ];
  });
  const notifications = p.data.notifications
    .filter(
      (n) =>
        n.user_id === userId &&
        n.chat_id === chat.chat_id &&
        (n.shown !== false || p.settings.showNotificationOnlyAnswers),
    )
    .map((n) => ({ text: n.text, message_id: n.mid, timestamp: n.timestamp }));
  return {
    chat: chatView(p.data, chat),
    messages,
    notifications,
    ...(chat.muted_until ? { muted_until: chat.muted_until } : {}),
    ...(chat.bot_stopped ? { bot_stopped: true } : {}),
  };
}
