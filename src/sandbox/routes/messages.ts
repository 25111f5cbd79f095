/** GET, POST, PUT, DELETE /messages and GET /messages/{messageId}. */
import type { FastifyInstance } from 'fastify';
import { accessDenied, badRequest, chatDenied } from '../errors.ts';
import { argsOf, bodyOf, boolArg, intArg, listArg, strArg } from '../http.ts';
import { applyEdit, messageFields } from '../message-body.ts';
import type { Platform } from '../platform.ts';
import type { ChatRecord, MessageRecord } from '../state.ts';
import { messageView } from '../views.ts';

/** The chat a POST /messages targets: `chat_id`, or the dialog with `user_id`. */
export function sendTarget(p: Platform, args: Record<string, unknown>): ChatRecord {
  const chatId = intArg(args, 'chat_id');
  const userId = intArg(args, 'user_id');
  if ((chatId === undefined) === (userId === undefined)) {
    throw badRequest('Give exactly one target: the query parameter chat_id or user_id');
  }
  if (chatId !== undefined) return p.botChat(chatId);
  const dialogId = p.data.dialogs[String(userId)];
  p.user(userId!);
  if (dialogId === undefined) throw chatDenied(`User ${userId} has not started a dialog with the bot`);
  return p.chat(dialogId);
}

function checkCanWrite(p: Platform, chat: ChatRecord): void {
  if (chat.type === 'dialog') {
    if (chat.status === 'removed' || chat.bot_stopped) {
      throw chatDenied(
        `The user stopped the bot or removed the dialog ${chat.chat_id}: sending is not allowed`,
      );
    }
  } else if (chat.type === 'channel') {
    p.requireBotRight(chat, 'write', 'post in a channel');
  }
}

/** A message the bot may see: 404 unknown, 403 when its chat is closed to the bot. */
export function visibleMessage(p: Platform, mid: string): MessageRecord {
  const msg = p.message(mid);
  p.botChat(msg.chat_id);
  return msg;
}

export function registerMessageRoutes(app: FastifyInstance, p: Platform): void {
  app.get('/messages', { config: { op: 'getMessages' } }, async (req) => {
    const args = argsOf(req);
    const chatId = intArg(args, 'chat_id');
    const ids = listArg(args, 'message_ids');
    if ((chatId === undefined) === (ids === undefined)) {
      throw badRequest('Give exactly one of the query parameters chat_id or message_ids');
    }
    if (ids) {
      const found = ids.map((id) => p.data.messages[id]).filter((m): m is MessageRecord => Boolean(m));
      return {
        messages: found
          .filter((m) => p.botIsIn(p.chat(m.chat_id)) && p.botSees(p.chat(m.chat_id), m))
          .map((m) => messageView(p.data, m)),
      };
    }
    const chat = p.botChat(chatId!);
    const count = intArg(args, 'count') ?? 50;
    if (count < 1 || count > 100) throw badRequest('Parameter "count" must be 1..100');
    const from = intArg(args, 'from');
    const to = intArg(args, 'to');
    const list = chat.mids
      .map((mid) => p.data.messages[mid]!)
      // History too: a bot without read_all_messages reads only what it would have been sent.
      .filter((m) => p.botSees(chat, m))
      .filter((m) => (from === undefined || m.timestamp <= from) && (to === undefined || m.timestamp >= to))
      .reverse()
      .slice(0, count);
    return { messages: list.map((m) => messageView(p.data, m)) };
  });

  app.get('/messages/:message_id', { config: { op: 'getMessage' } }, async (req) => {
    const mid = strArg(req.params as Record<string, unknown>, 'message_id', true);
    return messageView(p.data, visibleMessage(p, mid));
  });

  app.post('/messages', { config: { op: 'sendMessage' } }, async (req) => {
    const args = argsOf(req);
    boolArg(args, 'disable_link_preview');
    const chat = sendTarget(p, args);
    checkCanWrite(p, chat);
    const fields = messageFields(p, bodyOf(req), 'send');
    const msg = p.addMessage(chat, p.botId, fields);
    return { message: messageView(p.data, msg) };
  });

  app.put('/messages', { config: { op: 'editMessage' } }, async (req) => {
    const mid = strArg(argsOf(req), 'message_id', true);
    const msg = visibleMessage(p, mid);
    if (msg.sender_id !== p.botId)
      throw accessDenied(`The bot can edit only its own messages; ${mid} is not`);
    applyEdit(p, msg, messageFields(p, bodyOf(req), 'edit'));
    return { success: true };
  });

  app.delete('/messages', { config: { op: 'deleteMessage' } }, async (req) => {
    const mid = strArg(argsOf(req), 'message_id', true);
    const msg = visibleMessage(p, mid);
    const chat = p.chat(msg.chat_id);
    if (msg.sender_id !== p.botId) {
      if (chat.type === 'dialog') throw accessDenied(`In a dialog the bot can delete only its own messages`);
      p.requireBotRight(chat, 'delete', "delete other people's messages");
    }
    p.removeMessage(msg);
    return { success: true };
  });
}
