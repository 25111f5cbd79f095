/**
 * GET /_sandbox/events: a server-sent event stream of what people see change (see feed.ts for the
 * event shapes). `user_id` keeps the events of that person's chats, `chat_id` one chat; the standard
 * `Last-Event-ID` header (or `last_event_id`) replays what a reconnecting page missed.
 */
import type { FastifyInstance } from 'fastify';
import type { FeedEvent } from '../feed.ts';
import { argsOf, intArg } from '../http.ts';
import type { Platform } from '../platform.ts';

function visibleTo(
  p: Platform,
  e: FeedEvent,
  userId: number | undefined,
  chatId: number | undefined,
): boolean {
  if (chatId !== undefined && e.chat_id !== chatId) return false;
  if (userId === undefined) return true;
  if (e.type === 'notification') return e.user_id === userId;
  const chat = p.data.chats[String(e.chat_id)];
  if (!chat) return e.type === 'message.removed';
  return chat.type === 'dialog' ? chat.dialog_user_id === userId : Boolean(chat.members[String(userId)]);
}

export function registerEventStream(app: FastifyInstance, p: Platform): void {
  app.get('/_sandbox/events', (req, reply) => {
    const a = argsOf(req);
    const userId = intArg(a, 'user_id');
    const chatId = intArg(a, 'chat_id');
    const last = intArg({ v: req.headers['last-event-id'] ?? a.last_event_id }, 'v');
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.write(': sandbox events\n\n');
    const unsubscribe = p.feed.subscribe((e) => {
      if (visibleTo(p, e, userId, chatId))
        res.write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    }, last ?? Number.POSITIVE_INFINITY);
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    const forget = p.feed.onClose(() => {
      stop();
      res.end();
    });
    function stop() {
      clearInterval(heartbeat);
      unsubscribe();
      forget();
    }
    req.raw.once('close', stop);
  });
}
