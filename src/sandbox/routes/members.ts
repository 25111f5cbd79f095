/** Membership of the bot, admins and members of group chats and channels. */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ChatAdmin } from '../../client/schemas/index.ts';
import { accessDenied, badRequest, notFound } from '../errors.ts';
import { argsOf, bodyOf, boolArg, decodeBody, intArg, listArg } from '../http.ts';
import type { Platform } from '../platform.ts';
import { type ChatRecord, canonicalPermissions } from '../state.ts';
import { memberView } from '../views.ts';
import { pathChat } from './chats.ts';

/** POST /chats/{chatId}/members is answered until this date, then 404 (announced removal). */
export const ADD_MEMBERS_REMOVED_AT = Date.UTC(2026, 8, 30);

function groupOnly(chat: ChatRecord): void {
  if (chat.type === 'dialog')
    throw badRequest(`Chat ${chat.chat_id} is a dialog: it has no members or admins to manage`);
}

/** The member's view in a chat (404 when the user is not a member). */
function memberIn(p: Platform, chat: ChatRecord, userId: number) {
  const m = chat.members[String(userId)];
  if (!m) throw notFound(`User ${userId} is not a member of chat ${chat.chat_id}`);
  return memberView(p.data, m, p.settings.legacyPermissionNames);
}

/** The bot's own membership: read it, leave the chat. */
function registerBotMembership(app: FastifyInstance, p: Platform): void {
  const legacy = () => p.settings.legacyPermissionNames;
  const view = (chat: ChatRecord, userId: number) => memberIn(p, chat, userId);
  app.get('/chats/:chat_id/members/me', { config: { op: 'getMembership' } }, async (req) => {
    const chat = pathChat(p, req.params);
    if (chat.type === 'dialog') {
      return memberView(
        p.data,
        {
          user_id: p.botId,
          join_time: chat.created,
          last_access_time: p.now(),
          is_owner: false,
          is_admin: false,
          permissions: [],
        },
        legacy(),
      );
    }
    return view(chat, p.botId);
  });

  app.delete('/chats/:chat_id/members/me', { config: { op: 'leaveChat' } }, async (req) => {
    const chat = pathChat(p, req.params);
    groupOnly(chat);
    delete chat.members[String(p.botId)];
    chat.status = 'left';
    p.chatChanged(chat);
    return { success: true };
  });
}

/** A chat's admins: list, appoint, revoke. */
function registerAdminRoutes(app: FastifyInstance, p: Platform): void {
  const legacy = () => p.settings.legacyPermissionNames;
  app.get('/chats/:chat_id/members/admins', { config: { op: 'getAdmins' } }, async (req) => {
    const chat = pathChat(p, req.params);
    groupOnly(chat);
    return {
      members: Object.values(chat.members)
        .filter((m) => m.is_admin)
        .map((m) => memberView(p.data, m, legacy())),
    };
  });

  app.post('/chats/:chat_id/members/admins', { config: { op: 'setAdmins' } }, async (req) => {
    const chat = pathChat(p, req.params);
    groupOnly(chat);
    const { admins } = decodeBody(z.object({ admins: z.array(ChatAdmin).min(1) }), bodyOf(req), 'body');
    p.requireBotRight(chat, 'add_admins', 'appoint admins');
    const updates = admins.map((a, i) => {
      const member = chat.members[String(a.user_id)];
      if (!member)
        throw badRequest(`admins[${i}].user_id: user ${a.user_id} is not a member of chat ${chat.chat_id}`);
      try {
        return { member, permissions: canonicalPermissions(a.permissions), alias: a.alias };
      } catch (err) {
        throw badRequest(`admins[${i}].permissions: ${(err as Error).message}`);
      }
    });
    for (const u of updates) {
      u.member.is_admin = true;
      u.member.permissions = u.permissions;
      if (u.alias !== undefined) u.member.alias = u.alias;
    }
    return { success: true };
  });

  app.delete('/chats/:chat_id/members/admins/:user_id', { config: { op: 'revokeAdmin' } }, async (req) => {
    const chat = pathChat(p, req.params);
    groupOnly(chat);
    const userId = intArg(req.params as Record<string, unknown>, 'user_id', true);
    p.requireBotRight(chat, 'add_admins', 'revoke admin rights');
    const member = chat.members[String(userId)];
    if (!member) throw notFound(`User ${userId} is not a member of chat ${chat.chat_id}`);
    if (member.is_owner) throw accessDenied('The owner of a chat cannot lose admin rights');
    member.is_admin = false;
    member.permissions = [];
    return { success: true };
  });
}

/** A chat's members: list (by ids or by page), add, remove. */
function registerMemberListRoutes(app: FastifyInstance, p: Platform): void {
  const legacy = () => p.settings.legacyPermissionNames;
  const view = (chat: ChatRecord, userId: number) => memberIn(p, chat, userId);
  app.get('/chats/:chat_id/members', { config: { op: 'getMembers' } }, async (req) => {
    const chat = pathChat(p, req.params);
    groupOnly(chat);
    const args = argsOf(req);
    const ids = listArg(args, 'user_ids');
    if (ids) return { members: ids.filter((id) => chat.members[id]).map((id) => view(chat, Number(id))) };
    const count = intArg(args, 'count') ?? 20;
    if (count < 1 || count > 100) throw badRequest('Parameter "count" must be 1..100');
    const start = intArg(args, 'marker') ?? 0;
    const all = Object.values(chat.members).sort(
      (a, b) => a.join_time - b.join_time || a.user_id - b.user_id,
    );
    const page = all.slice(start, start + count);
    const next = start + count < all.length ? start + count : undefined;
    return {
      members: page.map((m) => memberView(p.data, m, legacy())),
      ...(next !== undefined ? { marker: next } : {}),
    };
  });

  app.post('/chats/:chat_id/members', { config: { op: 'addMembers' } }, async (req) => {
    if (p.now() >= ADD_MEMBERS_REMOVED_AT) {
      throw notFound('POST /chats/{chatId}/members was removed by the platform on 30 September 2026');
    }
    const chat = pathChat(p, req.params);
    groupOnly(chat);
    p.requireBotRight(chat, 'add_remove_members', 'add members');
    const ids = listArg(bodyOf(req), 'user_ids') ?? [];
    if (!ids.length) throw badRequest('Field "user_ids" must list at least one user');
    const failed = ids.map(Number).filter((id) => !p.data.users[String(id)]);
    for (const id of ids.map(Number)) {
      if (failed.includes(id) || chat.members[String(id)]) continue;
      const now = p.now();
      chat.members[String(id)] = {
        user_id: id,
        join_time: now,
        last_access_time: now,
        is_owner: false,
        is_admin: false,
        permissions: [],
      };
    }
    p.chatChanged(chat);
    return failed.length
      ? { success: false, message: 'Some users could not be added', failed_user_ids: failed }
      : { success: true };
  });

  app.delete('/chats/:chat_id/members', { config: { op: 'removeMember' } }, async (req) => {
    const chat = pathChat(p, req.params);
    groupOnly(chat);
    const args = argsOf(req);
    const userId = intArg(args, 'user_id', true);
    boolArg(args, 'block');
    p.requireBotRight(chat, 'add_remove_members', 'remove members');
    const member = chat.members[String(userId)];
    if (!member) throw notFound(`User ${userId} is not a member of chat ${chat.chat_id}`);
    if (member.is_owner) throw accessDenied('The owner of a chat cannot be removed');
    delete chat.members[String(userId)];
    p.chatChanged(chat);
    return { success: true };
  });
}

export function registerMemberRoutes(app: FastifyInstance, p: Platform): void {
  registerBotMembership(app, p);
  registerAdminRoutes(app, p);
  registerMemberListRoutes(app, p);
}
