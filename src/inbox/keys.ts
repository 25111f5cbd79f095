/**
 * The two keys derived from every update: the conversation it belongs to (which lane the engine runs it
 * in) and its de-duplication key (how the inbox recognises a second delivery). Both are pure functions of
 * the update and work on decoded updates and on raw JSON objects alike, so intake never has to decode.
 */
import { createHash } from 'node:crypto';
import type { Update } from '../client/schemas/index.ts';

/**
 * How updates are grouped into conversations (one session and one ordered lane per key):
 * - `user-in-chat` (default): each person separately in each group chat;
 * - `chat`: one conversation per group chat, shared by all its members;
 * - `user`: one conversation per person, across all chats.
 *
 * In a dialog (a private chat with the bot) the person *is* the conversation, so every strategy gives
 * `u:<user_id>` there; this also keeps callbacks whose message lacks `recipient.chat_id` (seen in
 * dialogs) in the same conversation as the dialog's messages.
 */
export type ConversationKeyStrategy = 'user-in-chat' | 'chat' | 'user';

/** Update types that only happen in a dialog between one person and the bot. */
const DIALOG_TYPES: ReadonlySet<string> = new Set([
  'bot_started',
  'bot_stopped',
  'dialog_cleared',
  'dialog_removed',
  'dialog_muted',
  'dialog_unmuted',
]);

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

function id(value: unknown): number | string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value !== '') return value;
  return undefined;
}

/** The update as a plain object: decoded unknown updates keep the original under `raw`. */
function plain(update: unknown): Json | undefined {
  const object = record(update);
  if (object?.update_type === 'unknown' && record(object.raw)) return object.raw as Json;
  return object;
}

/** Where an update happened: chat, person, and whether the chat is a dialog. */
export interface UpdatePlace {
  type: string | undefined;
  chatId: number | string | undefined;
  userId: number | string | undefined;
  isDialog: boolean;
}

/** Finds the chat and the person an update is about, whatever its type (unknown types included). */
export function updatePlace(update: Update | unknown): UpdatePlace {
  const u = plain(update) ?? {};
  const type = typeof u.update_type === 'string' ? u.update_type : undefined;
  const message = record(u.message);
  const recipient = record(message?.recipient);
  const callback = record(u.callback);
  const chatId = id(recipient?.chat_id) ?? id(u.chat_id);
  // For a callback the presser counts, not the bot that sent the message carrying the keyboard; for a
  // member joining or leaving, the member (whichever reading the update follows: see membershipChange).
  const member = type === 'user_added' || type === 'user_removed' ? memberOf(u) : undefined;
  const userId =
    member ??
    id(record(callback?.user)?.user_id) ??
    id(record(u.user)?.user_id) ??
    id(record(message?.sender)?.user_id) ??
    id(u.user_id);
  const chatType = typeof recipient?.chat_type === 'string' ? recipient.chat_type : undefined;
  const isDialog =
    chatType !== undefined
      ? chatType === 'dialog'
      : (type !== undefined && DIALOG_TYPES.has(type)) ||
        (typeof chatId === 'number' && chatId > 0) || // dialogs have positive ids, groups negative
        (callback !== undefined && chatId === undefined);
  return { type, chatId, userId, isDialog };
}

/**
 * A handoff button as botflow signs it (`<tag>.hf:take|done|closed:<conversation>.<mac>`, engine/step/buttons.ts):
 * Take, Done and 🔒 (a closed request) in an operators' chat (docs/handoff.md). Matching it says nothing of its authenticity:
 * the engine checks the signature.
 */
export const HANDOFF_BUTTON = /^[^.]+\.hf:(take|done|closed):([^.]+)\.[^.]+$/;

/**
 * Whether a group chat's update is an operator's handoff action: a press of a handoff button, or a reply
 * to a message that carries one. Every strategy keys these by the chat alone, so one lane takes an
 * operators' chat's actions in the order they arrived: the first Take wins, and `/done` comes after the
 * replies sent before it, even when several processes share the work (each lane is one partition).
 */
function handsOver(u: Json | undefined): boolean {
  const callback = record(u?.callback);
  if (callback) return typeof callback.payload === 'string' && HANDOFF_BUTTON.test(callback.payload);
  const link = record(record(u?.message)?.link);
  if (link?.type !== 'reply') return false;
  const attachments = record(link.message)?.attachments; // a LinkedMessage's `message` is a MessageBody
  if (!Array.isArray(attachments)) return false;
  return attachments.some((a) => {
    const buttons = record(record(a)?.payload)?.buttons;
    return (
      record(a)?.type === 'inline_keyboard' &&
      Array.isArray(buttons) &&
      buttons.some(
        (row) =>
          Array.isArray(row) &&
          row.some(
            (b) =>
              typeof record(b)?.payload === 'string' && HANDOFF_BUTTON.test(record(b)!.payload as string),
          ),
      )
    );
  });
}

/** The member of a `user_added`/`user_removed` update, by the same rule as `membershipChange`. */
function memberOf(u: Record<string, unknown>): number | string | undefined {
  const top = id(u.user_id);
  const user = id(record(u.user)?.user_id);
  return top !== undefined && top !== user ? top : user;
}

/** The id and time fields the spec types as integers, where an update carries them. */
const INTEGER_FIELDS: ReadonlyArray<readonly string[]> = [
  ['timestamp'],
  ['chat_id'],
  ['user_id'],
  ['user', 'user_id'],
  ['message', 'timestamp'],
  ['message', 'recipient', 'chat_id'],
  ['message', 'recipient', 'user_id'],
  ['message', 'sender', 'user_id'],
  ['callback', 'timestamp'],
  ['callback', 'user', 'user_id'],
];

/**
 * What is wrong with the update's integer fields, one line each (`message.recipient.chat_id 1.5 is not
 * an integer`); empty when they are fine. Ids past 2^53 - 1 arrive rounded from JSON (two people could
 * become one), so they are refused as well: the platform's ids are far below that.
 */
export function badIntegers(update: unknown): string[] {
  const u = plain(update);
  if (!u) return [];
  const problems: string[] = [];
  for (const path of INTEGER_FIELDS) {
    let value: unknown = u;
    for (const key of path) value = record(value)?.[key];
    if (value === undefined || value === null) continue;
    const name = path.join('.');
    if (typeof value !== 'number')
      problems.push(`${name} ${JSON.stringify(value).slice(0, 40)} is not a number`);
    else if (!Number.isInteger(value)) problems.push(`${name} ${value} is not an integer`);
    else if (!Number.isSafeInteger(value)) problems.push(`${name} ${value} is beyond 2^53 - 1`);
  }
  return problems;
}

/**
 * The conversation an update belongs to: `u:<user_id>` in dialogs, `c:<chat_id>:u:<user_id>`,
 * `c:<chat_id>` or `u:<user_id>` in group chats depending on `strategy` (an operator's handoff action is
 * `c:<chat_id>` whatever the strategy). Returns undefined for an update that names neither a chat nor a
 * person (the engine records it and moves on).
 */
export function conversationKey(
  update: Update | unknown,
  strategy: ConversationKeyStrategy = 'user-in-chat',
): string | undefined {
  const { chatId, userId, isDialog } = updatePlace(update);
  if (chatId !== undefined && !isDialog && handsOver(plain(update))) return `c:${chatId}`;
  if (userId !== undefined && (isDialog || strategy === 'user')) return `u:${userId}`;
  if (chatId === undefined) return userId === undefined ? undefined : `u:${userId}`;
  if (strategy === 'chat' || userId === undefined) return `c:${chatId}`;
  return `c:${chatId}:u:${userId}`;
}

/**
 * An update as JSON with object keys sorted and nulls dropped (absent and null mean the same on this
 * platform), for de-duplication keys. Flow versions hash with `canonicalJson` (flows/versions.ts), which
 * keeps nulls: a flow file's `null` is content.
 */
export function canonicalUpdateJson(value: unknown, depth = 0): string {
  // Bounded: intake refuses deeper updates before they get here (MAX_UPDATE_DEPTH).
  if (depth > 256) throw new RangeError('canonicalUpdateJson: nested deeper than 256 levels');
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalUpdateJson(v, depth + 1))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Json)[k] !== null && (value as Json)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalUpdateJson((value as Json)[k], depth + 1)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/**
 * The inbox de-duplication key of an update (updates carry no id of their own):
 * - `message_callback` → `cb:<callback_id>` (one per press);
 * - new messages and comments → `<type>:<body.mid>`; edits → `<type>:<body.mid>:<update timestamp>`;
 * - `message_removed` / `comment_removed` → `<type>:<id of the removed item>`;
 * - chat and dialog events → `<type>:<chat_id>:<user_id>:<timestamp>`;
 * - anything else (unknown types, fields missing) → `h:` + SHA-256 of the canonical JSON.
 * The same delivery always gives the same key, so a redelivery is recognised.
 */
export function dedupeKey(update: Update | unknown): string {
  const u = plain(update);
  if (!u) return `h:${sha256(canonicalUpdateJson(update))}`;
  const type = typeof u.update_type === 'string' ? u.update_type : undefined;
  const timestamp = id(u.timestamp);
  const mid = id(record(record(u.message)?.body)?.mid);
  switch (type) {
    case 'message_callback': {
      const callbackId = id(record(u.callback)?.callback_id);
      if (callbackId !== undefined) return `cb:${callbackId}`;
      break;
    }
    case 'message_created':
    case 'comment_created':
      if (mid !== undefined) return `${type}:${mid}`;
      break;
    case 'message_edited':
    case 'comment_edited':
      if (mid !== undefined) {
        // An edit has no id: the edit time tells two edits apart; failing that, the edited body.
        const editTime = timestamp ?? sha256(canonicalUpdateJson(record(u.message)?.body));
        return `${type}:${mid}:${editTime}`;
      }
      break;
    case 'message_removed':
    case 'comment_removed': {
      const removed = id(u.comment_id) ?? id(u.message_id);
      if (removed !== undefined) return `${type}:${removed}`;
      break;
    }
    default: {
      const { chatId, userId } = updatePlace(u);
      if (type !== undefined && chatId !== undefined && timestamp !== undefined && record(u.user)) {
        return `${type}:${chatId}:${userId ?? ''}:${timestamp}`;
      }
    }
  }
  return `h:${sha256(canonicalUpdateJson(u))}`;
}
