/**
 * Everything the sandbox platform remembers, as plain data (so it can be saved to SQLite as JSON):
 * the bot, people, chats with their members, messages, comments, callbacks, uploads, webhook
 * subscriptions and the notifications people were shown.
 */
import type { Attachment } from '../client/schemas/index.ts';
import { BotflowError } from '../errors/index.ts';
import { type IdCounters, newCounters } from './ids.ts';
import type { MarkupElement } from './markup.ts';

export type ChatKind = 'dialog' | 'chat' | 'channel';

/** A person or the bot. */
export interface UserRecord {
  user_id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  is_bot: boolean;
  description?: string;
  last_activity_time: number;
  /** Sent as `user_locale` in updates the person causes. */
  locale?: string;
}

/** Membership of one user (or the bot) in a group chat or channel. */
export interface MemberRecord {
  user_id: number;
  join_time: number;
  last_access_time: number;
  is_owner: boolean;
  is_admin: boolean;
  /** Canonical (assignable) permission names. */
  permissions: string[];
  alias?: string;
}

export interface ChatRecord {
  chat_id: number;
  type: ChatKind;
  /** active | removed | left | closed, as the bot sees the chat. */
  status: string;
  title?: string;
  description?: string;
  icon?: { url: string };
  owner_id?: number;
  /** For dialogs: the person on the other side. */
  dialog_user_id?: number;
  /** For dialogs: the person stopped the bot (sends are refused until they start it again). */
  bot_stopped?: boolean;
  muted_until?: number;
  members: Record<string, MemberRecord>;
  pinned_mid?: string;
  is_public: boolean;
  link?: string;
  created: number;
  last_event_time: number;
  /** Message ids in sending order. */
  mids: string[];
}

export interface MessageRecord {
  mid: string;
  seq: number;
  chat_id: number;
  sender_id: number;
  timestamp: number;
  text?: string;
  format?: string;
  /** As the platform returns them (tokens resolved to media objects). */
  attachments?: Attachment[];
  link?: { type: string; mid: string };
  /** Formatting of `text` (from `format: html | markdown`, and @mentions of known people). */
  markup?: MarkupElement[];
  edited_at?: number;
  views: number;
}

export interface CommentRecord {
  comment_id: string;
  seq: number;
  post_mid: string;
  chat_id: number;
  sender_id: number;
  timestamp: number;
  text?: string;
  link?: { type: string; mid: string };
}

export interface CallbackRecord {
  callback_id: string;
  mid: string;
  chat_id: number;
  user_id: number;
  payload?: string;
  timestamp: number;
  answered: boolean;
}

export type MediaKind = 'image' | 'video' | 'audio' | 'file';

/** An upload slot returned by POST /uploads: one file per slot. */
export interface UploadSlot {
  slot_id: string;
  kind: MediaKind;
  /** For video and audio: the token given out by POST /uploads. */
  token?: string;
  used: boolean;
}

/** An uploaded (or person-sent) media object, by its attachment token. */
export interface MediaRecord {
  token: string;
  kind: MediaKind;
  /** Until this time (sandbox clock) sends with the token get `attachment.not.ready`; absent = not uploaded yet. */
  ready_at?: number;
  file_id: string;
  filename?: string;
  size?: number;
  content_type?: string;
  photo_id?: number;
  /** For an image sent by URL: the URL it came from (the sandbox does not download it). */
  source_url?: string;
}

export interface SubscriptionRecord {
  url: string;
  secret?: string;
  update_types?: string[];
  version?: string;
  time: number;
}

/** A one-off notification a person was shown (callback answers). */
export interface NotificationRecord {
  user_id: number;
  chat_id: number;
  mid?: string;
  text: string;
  timestamp: number;
  /**
   * False for a notification-only answer, which the platform's clients do not display (it is kept so
   * that tests can tell "answered, but nobody saw it" from "not answered").
   */
  shown?: boolean;
}

export interface SandboxData {
  counters: IdCounters;
  bot: UserRecord;
  commands: { name: string; description?: string }[];
  users: Record<string, UserRecord>;
  chats: Record<string, ChatRecord>;
  /** Dialog chat id by user id. */
  dialogs: Record<string, number>;
  messages: Record<string, MessageRecord>;
  comments: Record<string, CommentRecord>;
  callbacks: Record<string, CallbackRecord>;
  uploads: Record<string, UploadSlot>;
  media: Record<string, MediaRecord>;
  subscriptions: SubscriptionRecord[];
  notifications: NotificationRecord[];
}

/** A fresh platform holding only the bot. */
export function emptyData(bot: UserRecord): SandboxData {
  return {
    counters: newCounters(),
    bot,
    commands: [],
    users: {},
    chats: {},
    dialogs: {},
    messages: {},
    comments: {},
    callbacks: {},
    uploads: {},
    media: {},
    subscriptions: [],
    notifications: [],
  };
}

/** Permissions the platform assigns; legacy names map onto them. */
export const ASSIGNABLE = new Set([
  'read_all_messages',
  'add_remove_members',
  'add_admins',
  'change_chat_info',
  'pin_message',
  'write',
  'edit',
  'delete',
  'can_call',
  'edit_link',
  'view_stats',
]);

const LEGACY: Record<string, string[]> = {
  post_edit_delete_message: ['write', 'edit', 'delete'],
  edit_message: ['edit'],
  delete_message: ['delete'],
};

/** Canonical permission names for what a client assigned (legacy names accepted); throws on unknown names. */
export function canonicalPermissions(input: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of input) {
    const legacy = LEGACY[p];
    if (legacy) for (const x of legacy) out.add(x);
    else if (ASSIGNABLE.has(p)) out.add(p);
    else
      throw new BotflowError(
        'BOTFLOW_SANDBOX_USAGE',
        `unknown permission "${p}" (known: ${[...ASSIGNABLE].join(', ')})`,
      );
  }
  return [...out];
}

/** Permissions as the platform reports them: the legacy names still appear next to the new ones. */
export function reportedPermissions(perms: readonly string[], legacyNames: boolean): string[] {
  const out = [...perms];
  if (!legacyNames) return out;
  if (perms.includes('write') && perms.includes('edit') && perms.includes('delete')) {
    out.push('post_edit_delete_message');
  }
  if (perms.includes('edit')) out.push('edit_message');
  if (perms.includes('delete')) out.push('delete_message');
  return out;
}
