import { z } from 'zod';
import { int, obj, timestamp } from './common.ts';
import { Callback, Message } from './messages.ts';
import { AdminPermission, User } from './objects.ts';

const envelope = { timestamp: timestamp.optional() };
const locale = { user_locale: z.string().optional() };
const chatUser = { chat_id: int, user: User };

export const MessageCreatedUpdate = obj({
  update_type: z.literal('message_created'),
  ...envelope,
  message: Message,
  ...locale,
});
export const MessageEditedUpdate = obj({
  update_type: z.literal('message_edited'),
  ...envelope,
  message: Message,
  ...locale,
});
export const MessageCallbackUpdate = obj({
  update_type: z.literal('message_callback'),
  ...envelope,
  callback: Callback,
  message: Message.optional(),
  ...locale,
});
export const MessageRemovedUpdate = obj({
  update_type: z.literal('message_removed'),
  ...envelope,
  message_id: z.string(),
  chat_id: int.optional(),
  user_id: int.optional(),
});
export const CommentCreatedUpdate = obj({
  update_type: z.literal('comment_created'),
  ...envelope,
  message: Message,
  ...locale,
});
export const CommentEditedUpdate = obj({
  update_type: z.literal('comment_edited'),
  ...envelope,
  message: Message,
  ...locale,
});
export const CommentRemovedUpdate = obj({
  update_type: z.literal('comment_removed'),
  ...envelope,
  comment_id: z.string().optional(),
  message_id: z.string().optional(),
  chat_id: int.optional(),
  user_id: int.optional(),
});
export const BotAddedUpdate = obj({
  update_type: z.literal('bot_added'),
  ...envelope,
  ...chatUser,
  is_channel: z.boolean().optional(),
});
export const BotRemovedUpdate = obj({
  update_type: z.literal('bot_removed'),
  ...envelope,
  ...chatUser,
  is_channel: z.boolean().optional(),
});
/**
 * Two readings exist of `user_added`/`user_removed` (see `membershipChange`): in the OpenAPI text `user`
 * is the person added or removed; in recorded payloads `user` is the inviter (or admin) and the person is
 * the top-level `user_id`.
 */
export const UserAddedUpdate = obj({
  update_type: z.literal('user_added'),
  ...envelope,
  ...chatUser,
  is_channel: z.boolean().optional(),
  inviter_id: int.optional(),
  user_id: int.optional(),
});
export const UserRemovedUpdate = obj({
  update_type: z.literal('user_removed'),
  ...envelope,
  ...chatUser,
  is_channel: z.boolean().optional(),
  admin_id: int.optional(),
  user_id: int.optional(),
});

/**
 * Who joined or left a group, and who did it, whichever reading the update follows: a top-level `user_id`
 * other than `user`'s names the member (then `user` is who added or removed them, as recorded); otherwise
 * `user` is the member (the OpenAPI text) and `inviter_id`/`admin_id` who did it. `by` is absent when the
 * member joined or left by themselves.
 *
 * @example
 * ```ts
 * import { membershipChange, type Update } from 'botflow-engine/client';
 *
 * function onUpdate(update: Update): void {
 *   if (update.update_type === 'user_added') {
 *     const { member, by } = membershipChange(update);
 *     console.log(`${member} joined${by ? `, added by ${by}` : ''}`);
 *   }
 * }
 * ```
 */
export function membershipChange(update: {
  user: { user_id: number };
  user_id?: number | undefined;
  inviter_id?: number | undefined;
  admin_id?: number | undefined;
}): { member: number; by?: number } {
  const actor = update.inviter_id ?? update.admin_id;
  if (update.user_id !== undefined && update.user_id !== update.user.user_id) {
    const by = actor ?? update.user.user_id;
    return { member: update.user_id, ...(by !== update.user_id ? { by } : {}) };
  }
  const member = update.user.user_id;
  return { member, ...(actor !== undefined && actor !== member ? { by: actor } : {}) };
}
/** The person pressed Start; `payload` is the deep-link parameter (≤ 512 characters). */
export const BotStartedUpdate = obj({
  update_type: z.literal('bot_started'),
  ...envelope,
  ...chatUser,
  payload: z.string().optional(),
  ...locale,
});
export const BotStoppedUpdate = obj({
  update_type: z.literal('bot_stopped'),
  ...envelope,
  ...chatUser,
  ...locale,
});
export const DialogClearedUpdate = obj({
  update_type: z.literal('dialog_cleared'),
  ...envelope,
  ...chatUser,
  ...locale,
});
export const DialogRemovedUpdate = obj({
  update_type: z.literal('dialog_removed'),
  ...envelope,
  ...chatUser,
  ...locale,
});
export const DialogMutedUpdate = obj({
  update_type: z.literal('dialog_muted'),
  ...envelope,
  ...chatUser,
  muted_until: timestamp.optional(),
  ...locale,
});
export const DialogUnmutedUpdate = obj({
  update_type: z.literal('dialog_unmuted'),
  ...envelope,
  ...chatUser,
  ...locale,
});
export const ChatTitleChangedUpdate = obj({
  update_type: z.literal('chat_title_changed'),
  ...envelope,
  ...chatUser,
  title: z.string().optional(),
});
/** Delivered by webhook only. Shape inferred: decoded leniently. */
export const BotAdminPermissionsChangedUpdate = obj({
  update_type: z.literal('bot_admin_permissions_changed'),
  ...envelope,
  chat_id: int,
  user: User.optional(),
  permissions: z.array(AdminPermission).optional(),
});

export const KnownUpdate = z.discriminatedUnion('update_type', [
  MessageCreatedUpdate,
  MessageEditedUpdate,
  MessageCallbackUpdate,
  MessageRemovedUpdate,
  CommentCreatedUpdate,
  CommentEditedUpdate,
  CommentRemovedUpdate,
  BotAddedUpdate,
  BotRemovedUpdate,
  UserAddedUpdate,
  UserRemovedUpdate,
  BotStartedUpdate,
  BotStoppedUpdate,
  DialogClearedUpdate,
  DialogRemovedUpdate,
  DialogMutedUpdate,
  DialogUnmutedUpdate,
  ChatTitleChangedUpdate,
  BotAdminPermissionsChangedUpdate,
]);
export type KnownUpdate = z.infer<typeof KnownUpdate>;

/** The 19 update types of the spec. */
export const UPDATE_TYPES = KnownUpdate.options.map((o) => o.shape.update_type.value);
export type UpdateType = KnownUpdate['update_type'];

/** An update whose `update_type` this version does not know. New types may be added by the platform. */
export interface UnknownUpdate {
  update_type: 'unknown';
  /** The type the platform sent. */
  original_update_type: string;
  timestamp?: number;
  /** The update as it came, nulls removed. */
  raw: Record<string, unknown>;
}

/** Any update the platform sends: a known type, or one this version does not know (kept, never dropped). */
export type Update = KnownUpdate | UnknownUpdate;
export type UpdateOf<T extends Update['update_type']> = Extract<Update, { update_type: T }>;

/** `GET /updates` response. */
export const UpdateList = obj({
  updates: z.array(z.unknown()),
  marker: int.optional(),
});
