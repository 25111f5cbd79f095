import { z } from 'zod';
import { Attachment, AttachmentRequest } from './attachments.ts';
import { int, obj, timestamp } from './common.ts';
import { Image, User } from './objects.ts';

export const TextFormat = z.enum(['markdown', 'html']);
export type TextFormat = z.infer<typeof TextFormat>;

/** Who a message is addressed to. In private dialogs `chat_id` has been seen missing. */
export const Recipient = obj({
  chat_id: int.optional(),
  chat_type: z.string().optional(),
  user_id: int.optional(),
});
export type Recipient = z.infer<typeof Recipient>;

export const MarkupElement = obj({
  type: z.string(),
  from: int,
  length: int,
  url: z.string().optional(),
  user_link: z.string().optional(),
  user_id: int.optional(),
});

/** `seq` exceeds 2^53 and arrives rounded: never rely on its exact value. */
export const MessageBody = obj({
  mid: z.string(),
  seq: int.optional(),
  text: z.string().optional(),
  attachments: z.array(Attachment).optional(),
  markup: z.array(MarkupElement).optional(),
});
export type MessageBody = z.infer<typeof MessageBody>;

/** A forwarded or replied-to message. */
export const LinkedMessage = obj({
  type: z.string(),
  sender: User.optional(),
  chat_id: int.optional(),
  message: MessageBody,
});

/**
 * A message as the platform stores and sends it: who sent it, where, and its body.
 *
 * @example
 * ```ts
 * import { Message } from 'botflow-engine/client';
 *
 * // A message as the platform sends it, e.g. in a webhook's `message_created` update.
 * function textOf(raw: unknown): string | undefined {
 *   const message: Message = Message.parse(raw);
 *   return message.body.text ?? undefined;
 * }
 * ```
 */
export const Message = obj({
  sender: User.optional(),
  recipient: Recipient,
  timestamp: timestamp,
  link: LinkedMessage.optional(),
  body: MessageBody,
  stat: obj({ views: int.optional() }).optional(),
  url: z.string().optional(),
});
/** A message as the platform returns it: sender, recipient, timestamp, body (text, attachments), link, stats. */
export type Message = z.infer<typeof Message>;

export const MessageList = obj({ messages: z.array(Message) });
export const SendMessageResult = obj({ message: Message });
export const PinnedMessageResult = obj({ message: Message.optional() });

export const NewMessageLink = obj({ type: z.enum(['forward', 'reply']), mid: z.string() });

/**
 * What POST /messages, PUT /messages and POST /answers take. On edit, `attachments` absent keeps the
 * message's attachments and `[]` removes them all.
 *
 * @example
 * ```ts
 * import { NewMessageBody } from 'botflow-engine/client';
 *
 * const body: NewMessageBody = { text: 'Hello', format: 'markdown' };
 * console.log(NewMessageBody.safeParse(body).success); // true
 * ```
 */
export const NewMessageBody = obj({
  text: z.string().optional(),
  attachments: z.array(AttachmentRequest).optional(),
  link: NewMessageLink.optional(),
  notify: z.boolean().optional(),
  format: TextFormat.optional(),
  disable_link_preview: z.boolean().optional(),
});
export type NewMessageBody = z.infer<typeof NewMessageBody>;

/** Maximum length of a message text. */
export const TEXT_MAX = 4000;

/** A comment on a channel post (a different model from Message: no attachments). Best public knowledge. */
export const CommentMessage = obj({
  sender: User.optional(),
  recipient: Recipient.optional(),
  timestamp: timestamp.optional(),
  link: LinkedMessage.optional(),
  body: obj({
    mid: z.string(),
    seq: int.optional(),
    text: z.string().optional(),
    markup: z.array(MarkupElement).optional(),
  }),
});
export type CommentMessage = z.infer<typeof CommentMessage>;
export const CommentList = obj({ messages: z.array(CommentMessage), marker: int.optional() });
export type CommentList = z.infer<typeof CommentList>;
export const SendCommentResult = obj({ message: CommentMessage });

/** Body of comment creation and editing. It has no notify field. */
export const NewCommentBody = obj({
  text: z.string().optional(),
  link: NewMessageLink.optional(),
  format: TextFormat.optional(),
});
export type NewCommentBody = z.infer<typeof NewCommentBody>;

/**
 * A dialog, group chat or channel.
 *
 * @example
 * ```ts
 * import { BotApi, type Chat } from 'botflow-engine/client';
 *
 * const api = new BotApi({ token: process.env.BOT_TOKEN ?? '', baseUrl: 'https://platform-api2.max.ru' });
 * const chat: Chat = await api.getChat({ chat_id: 42 });
 * console.log(chat.title ?? chat.type);
 * ```
 */
export const Chat = obj({
  chat_id: int,
  type: z.string(),
  status: z.string().optional(),
  title: z.string().optional(),
  icon: Image.optional(),
  last_event_time: timestamp.optional(),
  participants_count: int.optional(),
  owner_id: int.optional(),
  participants: z.record(z.string(), z.number()).optional(),
  is_public: z.boolean().optional(),
  link: z.string().optional(),
  description: z.string().optional(),
  dialog_with_user: User.optional(),
  messages_count: int.optional(),
  chat_message_id: z.string().optional(),
  pinned_message: Message.optional(),
});
export type Chat = z.infer<typeof Chat>;

/**
 * A callback button press.
 *
 * @example
 * ```ts
 * import { Callback } from 'botflow-engine/client';
 *
 * // The press of a callback button (`message_callback` update): its payload and who pressed.
 * function pressed(raw: unknown): string {
 *   const callback: Callback = Callback.parse(raw);
 *   return `${callback.user.user_id} pressed ${callback.payload ?? ''}`;
 * }
 * ```
 */
export const Callback = obj({
  timestamp: timestamp,
  callback_id: z.string(),
  payload: z.string().optional(),
  user: User,
});
export type Callback = z.infer<typeof Callback>;
