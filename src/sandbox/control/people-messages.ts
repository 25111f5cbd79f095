/**
 * What people say and press: messages (text, files, contact, location), button presses, edits and
 * deletions, channel posts and comments. Each produces the update the bot would receive.
 */
import type { Attachment, Button } from '../../client/schemas/index.ts';
import { mediaAttachment } from '../attachments.ts';
import { accessDenied, badRequest, notFound } from '../errors.ts';
import type { FileStore } from '../files.ts';
import { callbackId, opaqueToken } from '../ids.ts';
import { type InitDataSigner, openAppInitData } from '../mini-app.ts';
import type { Platform } from '../platform.ts';
import { addComment, commentsChanged } from '../routes/comments.ts';
import type { MediaKind, MessageRecord } from '../state.ts';
import { commentView, messageView } from '../views.ts';
import { conflict, locale, memberChat, publishIn } from './people-chats.ts';

/** A file a person sends: its kind, name and content (base64 or text). */
export interface PersonFile {
  type: MediaKind;
  filename?: string;
  content_base64?: string;
  text?: string;
  content_type?: string;
}

/** What a person's message may carry. */
export interface PersonMessage {
  text?: string;
  files?: PersonFile[];
  /** Shares a contact: another person's id, or a name and phone. Omitted fields: the sender's own. */
  contact?: { user_id?: number; name?: string; phone?: string };
  location?: { latitude: number; longitude: number };
  reply_to?: string;
}

/** The chat a person writes to: a chat id, or their dialog with the bot when omitted. */
export function personTarget(p: Platform, userId: number, chatId: number | undefined) {
  if (chatId === undefined) {
    const id = p.data.dialogs[String(userId)];
    p.user(userId);
    if (id === undefined) throw conflict(`User ${userId} has no dialog with the bot: start the bot first`);
    return p.chat(id);
  }
  return memberChat(p, userId, chatId);
}

function personAttachments(p: Platform, files: FileStore, userId: number, m: PersonMessage): Attachment[] {
  const out: Attachment[] = [];
  for (const f of m.files ?? []) {
    if (!['image', 'video', 'audio', 'file'].includes(f.type))
      throw badRequest(`files[].type must be image, video, audio or file`);
    const bytes = f.content_base64 ? Buffer.from(f.content_base64, 'base64') : Buffer.from(f.text ?? '');
    const file_id = files.put({
      bytes,
      contentType: f.content_type ?? 'application/octet-stream',
      filename: f.filename,
    });
    const token = opaqueToken(24);
    const media = {
      token,
      kind: f.type,
      ready_at: p.now(),
      file_id,
      filename: f.filename ?? `${f.type}.bin`,
      size: bytes.length,
      photo_id: ++p.data.counters.upload,
    };
    p.data.media[token] = media;
    out.push(mediaAttachment(p, media));
  }
  if (m.contact) {
    const who = p.user(m.contact.user_id ?? userId);
    const name = m.contact.name ?? [who.first_name, who.last_name].filter(Boolean).join(' ');
    const phone = m.contact.phone ?? '+70000000000';
    out.push({
      type: 'contact',
      payload: {
        vcf_info: `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:${name}\r\nTEL;TYPE=cell:${phone}\r\nEND:VCARD\r\n`,
        max_info: p.userJson(who.user_id),
      },
    } as Attachment);
  }
  if (m.location)
    out.push({ type: 'location', latitude: m.location.latitude, longitude: m.location.longitude });
  return out;
}

/** A person sends a message (in a channel: a post, admins only). */
export function personSends(
  p: Platform,
  files: FileStore,
  userId: number,
  chatId: number | undefined,
  m: PersonMessage,
): MessageRecord {
  const chat = personTarget(p, userId, chatId);
  if (chat.type === 'dialog' && (chat.bot_stopped || chat.status === 'removed')) {
    throw conflict(`User ${userId} stopped the bot or removed the dialog: start the bot again first`);
  }
  if (chat.type === 'channel') {
    const me = chat.members[String(userId)];
    if (!me?.is_owner && !me?.permissions.includes('write'))
      throw accessDenied(`Only admins with "write" post in channel ${chat.chat_id}`);
  }
  const attachments = personAttachments(p, files, userId, m);
  if (!m.text && attachments.length === 0)
    throw badRequest('A message needs text, files, a contact or a location');
  if (m.text && m.text.length > 4000) throw badRequest('Field "text": at most 4000 characters');
  if (m.reply_to) p.message(m.reply_to);
  const msg = p.addMessage(chat, userId, {
    text: m.text,
    attachments: attachments.length ? attachments : undefined,
    link: m.reply_to ? { type: 'reply', mid: m.reply_to } : undefined,
  });
  // The person's locale comes with a new message in a dialog only (MessageCreatedUpdate in the OpenAPI).
  const userLocale = chat.type === 'dialog' ? locale(p.user(userId)) : undefined;
  if (!p.botSees(chat, msg)) return msg; // a group message that is not for a bot without read_all_messages
  publishIn(p, chat, 'message_created', {
    chat_id: undefined,
    message: messageView(p.data, msg),
    ...(userLocale ? { user_locale: userLocale } : {}),
  });
  return msg;
}

/** Finds a button by callback payload or by its text. */
const variantCredit = new WeakMap<Platform, { withoutMessage: number; withoutChatId: number }>();

/**
 * Which shape this press's update takes: complete, without `message`, or without the recipient's
 * `chat_id` (dialogs only). Each share accrues per press and fires when it reaches a whole press.
 */
function callbackVariant(p: Platform, inDialog: boolean): 'complete' | 'without-message' | 'without-chat-id' {
  const shares = p.settings.callbackVariants;
  const credit = variantCredit.get(p) ?? { withoutMessage: 0, withoutChatId: 0 };
  variantCredit.set(p, credit);
  credit.withoutMessage += shares.withoutMessage;
  if (credit.withoutMessage >= 1) {
    credit.withoutMessage -= 1;
    return 'without-message';
  }
  if (!inDialog) return 'complete';
  credit.withoutChatId += shares.withoutChatId;
  if (credit.withoutChatId >= 1) {
    credit.withoutChatId -= 1;
    return 'without-chat-id';
  }
  return 'complete';
}

function findButton(msg: MessageRecord, by: { payload?: string; text?: string }): Button {
  const kb = msg.attachments?.find((a) => a.type === 'inline_keyboard') as
    | { payload: { buttons: Button[][] } }
    | undefined;
  if (!kb) throw conflict(`Message ${msg.mid} has no inline keyboard`);
  for (const row of kb.payload.buttons) {
    for (const b of row) {
      if (by.payload !== undefined && 'payload' in b && b.payload === by.payload) return b;
      if (by.text !== undefined && b.text === by.text) return b;
    }
  }
  const labels = kb.payload.buttons
    .flat()
    .map((b) => JSON.stringify(b.text))
    .join(', ');
  throw notFound(
    `No button ${by.payload !== undefined ? `with payload ${JSON.stringify(by.payload)}` : `labelled ${JSON.stringify(by.text)}`} on ${msg.mid} (buttons: ${labels})`,
  );
}

/** What pressing a button did. */
export interface PressResult {
  kind: string;
  callback_id?: string;
  message_id?: string;
  url?: string;
  /** open_app: the signed initData the mini-app gets (window.WebApp.initData). */
  init_data?: string;
  /** open_app: the button's web_app (which bot's mini-app opens). */
  web_app?: string;
}

/** A person presses a button of a message's inline keyboard. */
export function personPresses(
  p: Platform,
  files: FileStore,
  userId: number,
  mid: string,
  by: { payload?: string; text?: string; location?: { latitude: number; longitude: number } },
  sign?: InitDataSigner,
): PressResult {
  if (by.payload === undefined && by.text === undefined)
    throw badRequest('Give the button payload or its text');
  const msg = p.message(mid);
  const chat = memberChat(p, userId, msg.chat_id);
  const button = findButton(msg, by);
  const user = p.user(userId);
  switch (button.type) {
    case 'callback': {
      const id = callbackId();
      const timestamp = p.now();
      p.data.callbacks[id] = {
        callback_id: id,
        mid,
        chat_id: chat.chat_id,
        user_id: userId,
        payload: button.payload,
        timestamp,
        answered: false,
      };
      const variant = callbackVariant(p, chat.type === 'dialog');
      const message = messageView(p.data, msg) as { recipient: Record<string, unknown> };
      if (variant === 'without-chat-id') message.recipient = { ...message.recipient, chat_id: undefined };
      publishIn(p, chat, 'message_callback', {
        chat_id: undefined,
        callback: { timestamp, callback_id: id, payload: button.payload, user: p.userJson(userId) },
        message: variant === 'without-message' ? undefined : message,
        user_locale: locale(user),
      });
      return { kind: 'callback', callback_id: id };
    }
    case 'message':
      return {
        kind: 'message',
        message_id: personSends(p, files, userId, chat.chat_id, { text: button.text }).mid,
      };
    case 'request_contact':
      return {
        kind: 'contact',
        message_id: personSends(p, files, userId, chat.chat_id, { contact: {} }).mid,
      };
    case 'request_geo_location': {
      const location = by.location ?? { latitude: 55.7558, longitude: 37.6173 };
      return { kind: 'location', message_id: personSends(p, files, userId, chat.chat_id, { location }).mid };
    }
    case 'link':
      return { kind: 'link', url: button.url };
    case 'open_app': {
      if (!sign) return { kind: 'open_app' };
      const b = button as { web_app?: string; payload?: string };
      const initData = openAppInitData(sign, user, chat, p.now(), opaqueToken(16), b.payload);
      return { kind: 'open_app', init_data: initData, ...(b.web_app ? { web_app: b.web_app } : {}) };
    }
    default:
      return { kind: button.type };
  }
}

/** A person edits their own message. */
export function personEdits(p: Platform, userId: number, mid: string, text: string): MessageRecord {
  const msg = p.message(mid);
  const chat = memberChat(p, userId, msg.chat_id);
  if (msg.sender_id !== userId) throw accessDenied(`User ${userId} can edit only their own messages`);
  if (!text) throw badRequest('Field "text" is required');
  msg.text = text;
  msg.edited_at = p.now();
  p.messageEdited(msg);
  publishIn(p, chat, 'message_edited', { chat_id: undefined, message: messageView(p.data, msg) });
  return msg;
}

/** A person deletes a message (their own, or anyone's as a chat admin). */
export function personDeletes(p: Platform, userId: number, mid: string): void {
  const msg = p.message(mid);
  const chat = memberChat(p, userId, msg.chat_id);
  const member = chat.members[String(userId)];
  if (msg.sender_id !== userId && !(member?.is_owner || member?.is_admin)) {
    throw accessDenied(`User ${userId} can delete only their own messages here`);
  }
  p.removeMessage(msg);
  publishIn(p, chat, 'message_removed', { message_id: mid, user_id: userId });
}

/** A person comments on a channel post; `edit`/`remove` change their own comment. */
export function personComments(
  p: Platform,
  userId: number,
  action:
    | { post_id: string; text: string }
    | { comment_id: string; text: string }
    | { comment_id: string; remove: true },
): Record<string, unknown> {
  if ('post_id' in action) {
    const post = p.message(action.post_id);
    const chat = p.chat(post.chat_id);
    if (chat.type !== 'channel') throw badRequest(`Message ${post.mid} is not a channel post`);
    if (!action.text) throw badRequest('Field "text" is required');
    const c = addComment(p, post, userId, action.text);
    const view = commentView(p.data, c);
    publishIn(p, chat, 'comment_created', {
      chat_id: undefined,
      message: view,
      user_locale: locale(p.user(userId)),
    });
    return view;
  }
  const c = p.data.comments[action.comment_id];
  if (!c) throw notFound(`Comment ${action.comment_id} not found`);
  if (c.sender_id !== userId) throw accessDenied(`User ${userId} can change only their own comments`);
  const chat = p.chat(c.chat_id);
  if ('remove' in action) {
    delete p.data.comments[c.comment_id];
    commentsChanged(p, c);
    publishIn(p, chat, 'comment_removed', {
      comment_id: c.comment_id,
      message_id: c.post_mid,
      user_id: userId,
    });
    return { success: true };
  }
  c.text = action.text;
  commentsChanged(p, c);
  const view = commentView(p.data, c);
  publishIn(p, chat, 'comment_edited', {
    chat_id: undefined,
    message: view,
    user_locale: locale(p.user(userId)),
  });
  return view;
}
