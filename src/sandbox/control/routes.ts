/**
 * The people's control API under `/_sandbox/`: tests and the web chat act as people through it and
 * read what they see. Reference with examples: docs/sandbox.md.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SandboxBots } from '../bots.ts';
import type { FileStore } from '../files.ts';
import { argsOf, bodyOf, decodeBody, intArg, strArg } from '../http.ts';
import type { InitDataSigner } from '../mini-app.ts';
import { perBotRoutes } from '../per-bot.ts';
import type { Platform } from '../platform.ts';
import type { RequestLog } from '../request-log.ts';
import { chatView, memberView, messageView, userView } from '../views.ts';
import { botOfControl, registerBotRoutes } from './bots.ts';
import { registerEventStream } from './events.ts';
import * as chats from './people-chats.ts';
import * as msgs from './people-messages.ts';
import { personView } from './view.ts';

const id = z.coerce.number().int();
const User = z.object({
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  username: z.string().optional(),
  locale: z.string().optional(),
});
const File = z.object({
  type: z.enum(['image', 'video', 'audio', 'file']),
  filename: z.string().optional(),
  content_base64: z.string().optional(),
  text: z.string().optional(),
  content_type: z.string().optional(),
});
const Location = z.object({ latitude: z.number(), longitude: z.number() });
const Send = z.object({
  user_id: id,
  chat_id: id.optional(),
  text: z.string().optional(),
  files: z.array(File).optional(),
  contact: z
    .object({ user_id: id.optional(), name: z.string().optional(), phone: z.string().optional() })
    .optional(),
  location: Location.optional(),
  reply_to: z.string().optional(),
});
const Press = z.object({
  user_id: id,
  message_id: z.string(),
  payload: z.string().optional(),
  text: z.string().optional(),
  location: Location.optional(),
});
const Dialog = z.object({
  user_id: id,
  action: z.enum(['mute', 'unmute', 'clear', 'remove']),
  until: z.number().optional(),
});

const chatIdOf = (params: unknown) => intArg(params as Record<string, unknown>, 'chat_id', true);

const body = <S extends z.ZodType>(schema: S, raw: unknown) => decodeBody(schema, raw, 'body');

/** The sandbox itself, people and chats: info, users, chats, starting and stopping the bot, a dialog. */
function registerPeopleRoutes(app: FastifyInstance, p: Platform, shownToken: string | undefined): void {
  const legacy = () => p.settings.legacyPermissionNames;
  app.get('/_sandbox/info', async () => ({
    bot: userView(p.data.bot),
    origin: p.origin,
    time: p.now(),
    ...(shownToken ? { token: shownToken } : {}),
  }));

  app.post('/_sandbox/users', async (req) => {
    const u = chats.createUser(p, body(User, bodyOf(req)));
    return { ...userView(u), locale: u.locale };
  });
  app.get('/_sandbox/users', async () => ({ users: Object.values(p.data.users).map(userView) }));

  app.post('/_sandbox/chats', async (req) =>
    chatView(p.data, chats.createChat(p, body(chats.CreateChatInput, bodyOf(req)))),
  );
  app.get('/_sandbox/chats/:chat_id', async (req) => {
    const chat = p.chat(chatIdOf(req.params));
    return {
      chat: chatView(p.data, chat),
      members: Object.values(chat.members).map((m) => memberView(p.data, m, legacy())),
    };
  });

  app.post('/_sandbox/start', async (req) => {
    const b = body(z.object({ user_id: id, payload: z.string().optional() }), bodyOf(req));
    return { chat_id: chats.startBot(p, b.user_id, b.payload).chat_id };
  });
  app.post('/_sandbox/stop', async (req) => {
    const b = body(z.object({ user_id: id }), bodyOf(req));
    return { chat_id: chats.stopBot(p, b.user_id).chat_id };
  });
  app.post('/_sandbox/dialog', async (req) => {
    const b = body(Dialog, bodyOf(req));
    return { chat_id: chats.dialogAction(p, b.user_id, b.action, b.until).chat_id };
  });
}

/** What a person does with messages: send, edit, delete, press a button. */
function registerMessageRoutes(
  app: FastifyInstance,
  p: Platform,
  files: FileStore,
  signInitData?: InitDataSigner,
): void {
  app.post('/_sandbox/messages', async (req) => {
    const b = body(Send, bodyOf(req));
    const msg = msgs.personSends(p, files, b.user_id, b.chat_id, b);
    return { message: messageView(p.data, msg) };
  });
  app.put('/_sandbox/messages', async (req) => {
    const b = body(z.object({ user_id: id, message_id: z.string(), text: z.string() }), bodyOf(req));
    return { message: messageView(p.data, msgs.personEdits(p, b.user_id, b.message_id, b.text)) };
  });
  app.delete('/_sandbox/messages', async (req) => {
    const a = argsOf(req);
    msgs.personDeletes(p, intArg(a, 'user_id', true), strArg(a, 'message_id', true));
    return { success: true };
  });
  app.post('/_sandbox/press', async (req) => {
    const b = body(Press, bodyOf(req));
    return msgs.personPresses(p, files, b.user_id, b.message_id, b, signInitData);
  });
}

/** What a person does in a group chat: add or remove the bot, its rights, members, the title. */
function registerGroupRoutes(app: FastifyInstance, p: Platform): void {
  app.post('/_sandbox/chats/:chat_id/bot', async (req) => {
    const b = body(z.object({ user_id: id, permissions: z.array(z.string()).optional() }), bodyOf(req));
    return chatView(p.data, chats.addBot(p, b.user_id, chatIdOf(req.params), b.permissions));
  });
  app.delete('/_sandbox/chats/:chat_id/bot', async (req) => {
    return chatView(p.data, chats.removeBot(p, intArg(argsOf(req), 'user_id', true), chatIdOf(req.params)));
  });
  app.put('/_sandbox/chats/:chat_id/bot/rights', async (req) => {
    const b = body(z.object({ user_id: id, permissions: z.array(z.string()) }), bodyOf(req));
    return chatView(p.data, chats.setBotAdminRights(p, b.user_id, chatIdOf(req.params), b.permissions));
  });
  app.post('/_sandbox/chats/:chat_id/members', async (req) => {
    const b = body(z.object({ user_id: id, member_id: id }), bodyOf(req));
    return chatView(p.data, chats.addUser(p, b.user_id, chatIdOf(req.params), b.member_id));
  });
  app.delete('/_sandbox/chats/:chat_id/members', async (req) => {
    const a = argsOf(req);
    const actor = intArg(a, 'user_id', true);
    return chatView(
      p.data,
      chats.removeUser(p, actor, chatIdOf(req.params), intArg(a, 'member_id') ?? actor),
    );
  });
  app.put('/_sandbox/chats/:chat_id/title', async (req) => {
    const b = body(z.object({ user_id: id, title: z.string() }), bodyOf(req));
    return chatView(p.data, chats.renameChat(p, b.user_id, chatIdOf(req.params), b.title));
  });
}

/** A person's comments on a channel's post: write, edit, remove. */
function registerCommentRoutes(app: FastifyInstance, p: Platform): void {
  app.post('/_sandbox/comments', async (req) => {
    const b = body(z.object({ user_id: id, post_id: z.string(), text: z.string() }), bodyOf(req));
    return { message: msgs.personComments(p, b.user_id, { post_id: b.post_id, text: b.text }) };
  });
  app.put('/_sandbox/comments', async (req) => {
    const b = body(z.object({ user_id: id, comment_id: z.string(), text: z.string().min(1) }), bodyOf(req));
    return { message: msgs.personComments(p, b.user_id, { comment_id: b.comment_id, text: b.text }) };
  });
  app.delete('/_sandbox/comments', async (req) => {
    const a = argsOf(req);
    return msgs.personComments(p, intArg(a, 'user_id', true), {
      comment_id: strArg(a, 'comment_id', true),
      remove: true,
    });
  });
}

/** What people see and what the bot did: a person's view, notifications, requests, deliveries. */
function registerViewRoutes(app: FastifyInstance, p: Platform, log: RequestLog): void {
  app.get('/_sandbox/view', async (req) => {
    const a = argsOf(req);
    return personView(p, intArg(a, 'user_id', true), intArg(a, 'chat_id'));
  });
  app.get('/_sandbox/notifications', async (req) => {
    const userId = intArg(argsOf(req), 'user_id', true);
    return { notifications: p.data.notifications.filter((n) => n.user_id === userId) };
  });
  app.get('/_sandbox/requests', async (req) => ({ requests: log.list(intArg(argsOf(req), 'since') ?? 0) }));
  app.get('/_sandbox/deliveries', async () => ({
    attempts: p.hub.webhooks.attempts,
    backlog: p.hub.webhooks.backlog(),
    pending_polling: p.hub.poll.pending,
  }));
}

/** Registers `/_sandbox/*` on `app`; `bot_id` (query or body) picks the bot, the default one when absent. */
export function registerControlRoutes(
  app: FastifyInstance,
  bots: SandboxBots,
  files: FileStore,
  /** `/_sandbox/info` shows a bot's token when the sandbox made it (SandboxOptions.showToken, on loopback). */
  showToken: boolean,
): void {
  registerBotRoutes(app, bots, showToken);
  perBotRoutes(
    app,
    bots.default,
    (a, bot) => {
      const p = bot.platform;
      registerPeopleRoutes(a, p, showToken && bot.tokenMade ? bot.token : undefined);
      registerMessageRoutes(a, p, files, bot.signInitData);
      registerGroupRoutes(a, p);
      registerCommentRoutes(a, p);
      registerViewRoutes(a, p, bot.log);
      registerEventStream(a, p);
    },
    (req) => botOfControl(bots, req),
  );
}
