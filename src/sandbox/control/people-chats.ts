/**
 * What people do around chats: create accounts and group chats, start and stop the bot, mute, clear or
 * remove a dialog, add and remove the bot or other people, rename a chat, change the bot's admin
 * rights. Each action changes the platform and produces the update the bot would get.
 */
import { z } from 'zod';
import { accessDenied, badRequest, PlatformError } from '../errors.ts';
import { FIRST_USER_ID } from '../ids.ts';
import type { Platform } from '../platform.ts';
import {
  ASSIGNABLE,
  type ChatRecord,
  canonicalPermissions,
  reportedPermissions,
  type UserRecord,
} from '../state.ts';

/** What `POST /_sandbox/chats` takes (the control client sends the same). */
export const CreateChatInput = z.object({
  owner_id: z.coerce.number().int(),
  title: z.string().min(1),
  type: z.enum(['chat', 'channel']).optional(),
  member_ids: z.array(z.coerce.number().int()).optional(),
  with_bot: z.boolean().optional(),
  bot_permissions: z.array(z.string()).optional(),
  description: z.string().optional(),
  is_public: z.boolean().optional(),
  /** A fixed id (a group chat a flow names, such as its operators' chat); default: the next free one. */
  chat_id: z.coerce.number().int().negative().optional(),
});
export type CreateChatInput = z.infer<typeof CreateChatInput>;

/** A control request that makes no sense in the current state (409). */
export const conflict = (message: string) => new PlatformError(409, 'sandbox.conflict', message);

/** Publishes an update when the bot can see `chat`. */
export function publishIn(
  p: Platform,
  chat: ChatRecord,
  type: string,
  fields: Record<string, unknown>,
): void {
  if (p.botIsIn(chat)) p.publish(type, { chat_id: chat.chat_id, ...fields });
}

export function locale(u: UserRecord): string | undefined {
  return u.locale;
}

/** A group chat or channel the person belongs to (dialogs are refused where meaningless). */
export function memberChat(p: Platform, userId: number, chatId: number): ChatRecord {
  const chat = p.chat(chatId);
  if (chat.type === 'dialog') {
    if (chat.dialog_user_id !== userId) throw accessDenied(`User ${userId} is not in dialog ${chatId}`);
    return chat;
  }
  if (!chat.members[String(userId)]) throw accessDenied(`User ${userId} is not a member of chat ${chatId}`);
  return chat;
}

function requireAdmin(chat: ChatRecord, userId: number, what: string): void {
  const m = chat.members[String(userId)];
  if (!m?.is_owner && !m?.is_admin)
    throw accessDenied(`User ${userId} must be an admin of chat ${chat.chat_id} to ${what}`);
}

export function createUser(
  p: Platform,
  input: { first_name?: string; last_name?: string; username?: string; locale?: string },
): UserRecord {
  const n = ++p.data.counters.user;
  const user: UserRecord = {
    user_id: FIRST_USER_ID + n,
    first_name: input.first_name || `Person ${n}`,
    last_name: input.last_name,
    username: input.username,
    is_bot: false,
    last_activity_time: p.now(),
    locale: input.locale ?? 'en',
  };
  p.data.users[String(user.user_id)] = user;
  return user;
}

export function createChat(p: Platform, input: CreateChatInput): ChatRecord {
  p.user(input.owner_id);
  if (!input.title) throw badRequest('Field "title" is required');
  const now = p.now();
  const type = input.type ?? 'chat';
  if (input.chat_id !== undefined && p.data.chats[String(input.chat_id)])
    throw conflict(`Chat ${input.chat_id} already exists`);
  const chat = p.newChat(type, {
    ...(input.chat_id !== undefined ? { chat_id: input.chat_id } : {}),
    title: input.title,
    description: input.description,
    owner_id: input.owner_id,
    is_public: input.is_public ?? false,
  });
  chat.link = `https://sandbox.local/join/${Math.abs(chat.chat_id).toString(36)}`;
  chat.members[String(input.owner_id)] = {
    user_id: input.owner_id,
    join_time: now,
    last_access_time: now,
    is_owner: true,
    is_admin: true,
    permissions: [...ASSIGNABLE], // the owner may do everything
  };
  for (const id of input.member_ids ?? []) {
    p.user(id);
    chat.members[String(id)] ??= {
      user_id: id,
      join_time: now,
      last_access_time: now,
      is_owner: false,
      is_admin: false,
      permissions: [],
    };
  }
  if (input.with_bot) addBot(p, input.owner_id, chat.chat_id, input.bot_permissions);
  return chat;
}

export function startBot(p: Platform, userId: number, payload?: string): ChatRecord {
  const user = p.user(userId);
  if (payload !== undefined && payload.length > 512)
    throw badRequest('Field "payload": at most 512 characters');
  const chat = p.dialogOf(userId);
  chat.status = 'active';
  chat.bot_stopped = false;
  chat.last_event_time = p.now();
  p.publish('bot_started', {
    chat_id: chat.chat_id,
    user: p.userJson(userId),
    user_id: userId,
    payload,
    user_locale: locale(user),
  });
  p.chatChanged(chat);
  return chat;
}

function dialogFor(p: Platform, userId: number): ChatRecord {
  const id = p.data.dialogs[String(userId)];
  p.user(userId);
  if (id === undefined) throw conflict(`User ${userId} has no dialog with the bot: start the bot first`);
  return p.chat(id);
}

export function stopBot(p: Platform, userId: number): ChatRecord {
  const chat = dialogFor(p, userId);
  chat.bot_stopped = true;
  p.publish('bot_stopped', {
    chat_id: chat.chat_id,
    user: p.userJson(userId),
    user_locale: locale(p.user(userId)),
  });
  p.chatChanged(chat);
  return chat;
}

/** Mute (`until` ms, default 8 hours), unmute, clear or remove the person's dialog with the bot. */
export function dialogAction(
  p: Platform,
  userId: number,
  action: 'mute' | 'unmute' | 'clear' | 'remove',
  until?: number,
): ChatRecord {
  const chat = dialogFor(p, userId);
  const user = p.userJson(userId);
  const user_locale = locale(p.user(userId));
  if (action === 'mute') {
    chat.muted_until = until ?? p.now() + 8 * 3600_000;
    p.publish('dialog_muted', { chat_id: chat.chat_id, user, muted_until: chat.muted_until, user_locale });
  } else if (action === 'unmute') {
    chat.muted_until = undefined;
    p.publish('dialog_unmuted', { chat_id: chat.chat_id, user, user_locale });
  } else {
    for (const mid of [...chat.mids]) {
      const m = p.data.messages[mid];
      if (m) p.removeMessage(m);
    }
    if (action === 'remove') chat.status = 'removed';
    p.publish(action === 'clear' ? 'dialog_cleared' : 'dialog_removed', {
      chat_id: chat.chat_id,
      user,
      user_locale,
    });
  }
  p.chatChanged(chat);
  return chat;
}

export function addBot(p: Platform, actorId: number, chatId: number, permissions?: string[]): ChatRecord {
  const chat = memberChat(p, actorId, chatId);
  if (chat.type === 'dialog') throw badRequest('The bot cannot be added to a dialog');
  if (chat.members[String(p.botId)]) throw conflict(`The bot is already in chat ${chatId}`);
  const now = p.now();
  const perms = permissions?.length ? canonical(permissions) : [];
  chat.members[String(p.botId)] = {
    user_id: p.botId,
    join_time: now,
    last_access_time: now,
    is_owner: false,
    is_admin: perms.length > 0,
    permissions: perms,
  };
  chat.status = 'active';
  p.publish('bot_added', {
    chat_id: chat.chat_id,
    user: p.userJson(actorId),
    user_id: actorId,
    is_channel: chat.type === 'channel',
  });
  p.chatChanged(chat);
  return chat;
}

export function removeBot(p: Platform, actorId: number, chatId: number): ChatRecord {
  const chat = memberChat(p, actorId, chatId);
  if (!chat.members[String(p.botId)]) throw conflict(`The bot is not in chat ${chatId}`);
  requireAdmin(chat, actorId, 'remove the bot');
  delete chat.members[String(p.botId)];
  p.publish('bot_removed', {
    chat_id: chat.chat_id,
    user: p.userJson(actorId),
    user_id: actorId,
    is_channel: chat.type === 'channel',
  });
  p.chatChanged(chat);
  return chat;
}

export function addUser(p: Platform, actorId: number, chatId: number, userId: number): ChatRecord {
  const chat = memberChat(p, actorId, chatId);
  p.user(userId);
  if (chat.type === 'dialog') throw badRequest('People cannot be added to a dialog');
  if (chat.members[String(userId)]) throw conflict(`User ${userId} is already in chat ${chatId}`);
  const now = p.now();
  chat.members[String(userId)] = {
    user_id: userId,
    join_time: now,
    last_access_time: now,
    is_owner: false,
    is_admin: false,
    permissions: [],
  };
  // As the platform's recorded payloads have it: `user` is who added them, `user_id` the member (the
  // OpenAPI text reads `user` as the member; botflow's membershipChange reads both).
  publishIn(p, chat, 'user_added', {
    user: p.userJson(actorId),
    user_id: userId,
    is_channel: chat.type === 'channel',
    inviter_id: actorId === userId ? undefined : actorId,
  });
  p.chatChanged(chat);
  return chat;
}

/** Removes a person (or the person leaves when `actorId === userId`). */
export function removeUser(p: Platform, actorId: number, chatId: number, userId: number): ChatRecord {
  const chat = memberChat(p, actorId, chatId);
  if (!chat.members[String(userId)]) throw conflict(`User ${userId} is not in chat ${chatId}`);
  if (actorId !== userId) requireAdmin(chat, actorId, 'remove people');
  publishIn(p, chat, 'user_removed', {
    user: p.userJson(actorId),
    user_id: userId,
    is_channel: chat.type === 'channel',
    admin_id: actorId === userId ? undefined : actorId,
  });
  delete chat.members[String(userId)];
  p.chatChanged(chat);
  return chat;
}

export function renameChat(p: Platform, actorId: number, chatId: number, title: string): ChatRecord {
  const chat = memberChat(p, actorId, chatId);
  if (chat.type === 'dialog') throw badRequest('A dialog has no title');
  if (!title) throw badRequest('Field "title" is required');
  chat.title = title;
  chat.last_event_time = p.now();
  publishIn(p, chat, 'chat_title_changed', { user: p.userJson(actorId), user_id: actorId, title });
  p.chatChanged(chat);
  return chat;
}

function canonical(perms: string[]): string[] {
  try {
    return canonicalPermissions(perms);
  } catch (err) {
    throw badRequest(`Field "permissions": ${(err as Error).message}`);
  }
}

/** Gives the bot exactly `permissions` (empty: not an admin); the bot hears of it by webhook only. */
export function setBotAdminRights(
  p: Platform,
  actorId: number,
  chatId: number,
  permissions: string[],
): ChatRecord {
  const chat = memberChat(p, actorId, chatId);
  requireAdmin(chat, actorId, "change the bot's rights");
  const me = chat.members[String(p.botId)];
  if (!me) throw conflict(`The bot is not in chat ${chatId}`);
  me.permissions = canonical(permissions);
  me.is_admin = me.permissions.length > 0;
  p.publish('bot_admin_permissions_changed', {
    chat_id: chat.chat_id,
    user: p.userJson(actorId),
    permissions: reportedPermissions(me.permissions, p.settings.legacyPermissionNames),
  });
  p.chatChanged(chat);
  return chat;
}
