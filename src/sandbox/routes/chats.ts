/** GET/PATCH /chats/{chatId}, sender actions, pins, and the platform's answers to removed chat routes. */
import type { FastifyInstance } from 'fastify';
import { SENDER_ACTIONS } from '../../client/schemas/index.ts';
import { badRequest, methodNotAllowed, notFound } from '../errors.ts';
import { bodyOf, boolArg, strArg } from '../http.ts';
import type { Platform } from '../platform.ts';
import type { ChatRecord } from '../state.ts';
import { chatView, messageView } from '../views.ts';

/** The chat of a `:chat_id` path parameter as the bot may see it (a non-numeric id is a chat link). */
export function pathChat(p: Platform, params: unknown): ChatRecord {
  const raw = String((params as { chat_id?: string }).chat_id ?? '');
  if (!/^-?\d+$/.test(raw)) {
    const byLink = Object.values(p.data.chats).find(
      (c) => c.link && (c.link === raw || c.link.endsWith(`/${raw}`)),
    );
    if (!byLink) throw notFound(`Chat ${raw} not found`);
    return p.botChat(byLink.chat_id);
  }
  return p.botChat(Number(raw));
}

export function registerChatRoutes(app: FastifyInstance, p: Platform): void {
  app.get('/chats', { config: { op: 'getChats' } }, async () => {
    throw notFound(
      'GET /chats was removed by the platform: no list of chats is available; keep track of bot_added and bot_removed updates',
    );
  });

  app.get('/chats/:chat_id', { config: { op: 'getChat' } }, async (req) =>
    chatView(p.data, pathChat(p, req.params)),
  );

  app.delete('/chats/:chat_id', { config: { op: 'deleteChat' } }, async () => {
    throw methodNotAllowed(
      'DELETE /chats/{chatId} does not exist on the platform; to leave a chat use DELETE /chats/{chatId}/members/me',
    );
  });

  app.patch('/chats/:chat_id', { config: { op: 'editChat' } }, async (req) => {
    const chat = pathChat(p, req.params);
    const body = bodyOf(req);
    if (chat.type === 'dialog') throw badRequest('A dialog has no title, icon or description to edit');
    p.requireBotRight(chat, 'change_chat_info', 'change the chat info');
    const title = strArg(body, 'title');
    if (title !== undefined) {
      if (title.length > 200) throw badRequest('Field "title": at most 200 characters');
      chat.title = title;
    }
    const description = strArg(body, 'description');
    if (description !== undefined) chat.description = description;
    const icon = body.icon as { url?: unknown } | undefined | null;
    if (icon && typeof icon === 'object' && typeof icon.url === 'string') chat.icon = { url: icon.url };
    const pin = strArg(body, 'pin');
    if (pin !== undefined) {
      const msg = p.message(pin);
      if (msg.chat_id !== chat.chat_id) throw badRequest(`Message ${pin} is not in chat ${chat.chat_id}`);
      chat.pinned_mid = pin;
    }
    chat.last_event_time = p.now();
    p.chatChanged(chat);
    return chatView(p.data, chat);
  });

  app.post('/chats/:chat_id/actions', { config: { op: 'sendAction' } }, async (req) => {
    const chat = pathChat(p, req.params);
    const action = strArg(bodyOf(req), 'action', true);
    if (!(SENDER_ACTIONS as readonly string[]).includes(action)) {
      throw badRequest(`Field "action" must be one of ${SENDER_ACTIONS.join(', ')}`);
    }
    p.feed.emit({ type: 'chat.action', chat_id: chat.chat_id, action });
    return { success: true };
  });

  app.get('/chats/:chat_id/pin', { config: { op: 'getPinnedMessage' } }, async (req) => {
    const chat = pathChat(p, req.params);
    const msg = chat.pinned_mid ? p.data.messages[chat.pinned_mid] : undefined;
    return { message: msg ? messageView(p.data, msg) : null };
  });

  app.put('/chats/:chat_id/pin', { config: { op: 'pinMessage' } }, async (req) => {
    const chat = pathChat(p, req.params);
    const args = bodyOf(req);
    const mid = strArg(args, 'message_id', true);
    boolArg(args, 'notify');
    const msg = p.message(mid);
    if (msg.chat_id !== chat.chat_id) throw badRequest(`Message ${mid} is not in chat ${chat.chat_id}`);
    p.requireBotRight(chat, 'pin_message', 'pin messages');
    chat.pinned_mid = mid;
    p.chatChanged(chat);
    return { success: true };
  });

  app.delete('/chats/:chat_id/pin', { config: { op: 'unpinMessage' } }, async (req) => {
    const chat = pathChat(p, req.params);
    p.requireBotRight(chat, 'pin_message', 'unpin messages');
    chat.pinned_mid = undefined;
    p.chatChanged(chat);
    return { success: true };
  });
}
