/**
 * The Bot API as one fastify plugin: raw-token auth (401 `verify.token`), the per-token rate limits
 * (429 with Retry-After), the request log, and every endpoint.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SandboxBot, SandboxBots } from '../bots.ts';
import { badRequest, invalidToken, PlatformError } from '../errors.ts';
import { argsOf } from '../http.ts';
import { wallTime } from '../limits.ts';
import { perBotRoutes } from '../per-bot.ts';
import type { Platform } from '../platform.ts';
import { QUERY_ONLY } from '../spec-schemas.ts';
import { registerAnswerRoutes } from './answers.ts';
import { registerChatRoutes } from './chats.ts';
import { registerCommentRoutes } from './comments.ts';
import { registerMeRoutes } from './me.ts';
import { registerMemberRoutes } from './members.ts';
import { registerMessageRoutes } from './messages.ts';
import { registerSubscriptionRoutes } from './subscriptions.ts';
import { registerUpdateRoutes } from './updates.ts';
import { registerUploadRoutes } from './uploads.ts';

/** Operations counted against the per-chat limit (POST/PUT/DELETE /messages, POST /answers). */
const CHAT_SCOPED = new Set(['sendMessage', 'editMessage', 'deleteMessage', 'answerCallback']);

export interface BotApiContext {
  bots: SandboxBots;
}

/** The bot a Bot API request is for, found by its token in the onRequest hook. */
const botOfRequest = (req: FastifyRequest) => (req as { sandboxBot?: SandboxBot }).sandboxBot!;

const opOf = (req: FastifyRequest) => (req.routeOptions.config as { op?: string } | undefined)?.op;

/** The chat a chat-scoped request counts against, found without changing anything. */
function chatScope(p: Platform, op: string, req: FastifyRequest): number | undefined {
  const args = argsOf(req);
  const num = (v: unknown) =>
    v === undefined || v === null || v === '' || Number.isNaN(Number(v)) ? undefined : Number(v);
  if (op === 'sendMessage') {
    const chat = num(args.chat_id);
    if (chat !== undefined) return chat;
    const user = num(args.user_id);
    return user === undefined ? undefined : (p.data.dialogs[String(user)] ?? -user);
  }
  if (op === 'answerCallback') return p.data.callbacks[String(args.callback_id)]?.chat_id;
  return p.data.messages[String(args.message_id)]?.chat_id;
}

/** Registers the Bot API routes on `app` (an encapsulated context). */
export async function botApiPlugin(app: FastifyInstance, ctx: BotApiContext): Promise<void> {
  const { bots } = ctx;

  app.addHook('onRequest', async (req) => {
    (req as { arrivedAt?: number }).arrivedAt = wallTime();
    // The spec requires the raw token in the Authorization header; the old `?access_token=` is refused.
    if ((req.query as { access_token?: unknown }).access_token !== undefined) throw invalidToken();
    // Each token is one bot: its platform, its limits and its request log (as the platform limits per token).
    const bot = bots.byToken(req.headers.authorization);
    if (!bot) throw invalidToken();
    (req as { sandboxBot?: SandboxBot }).sandboxBot = bot;
  });

  app.addHook('preHandler', async (req) => {
    const op = opOf(req);
    const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
    for (const name of (op && QUERY_ONLY[op]) || []) {
      if (name in body) {
        throw badRequest(
          `Parameter "${name}" belongs in the query string (?${name}=…), not in the JSON body`,
        );
      }
    }
    const { platform: p, limiter } = botOfRequest(req);
    const scope = op && CHAT_SCOPED.has(op) ? chatScope(p, op, req) : undefined;
    (req as { chatScope?: number }).chatScope = scope;
    if (!limiter) return;
    const at = wallTime();
    (req as { arrivedAt?: number }).arrivedAt = at;
    const verdict = limiter.admit(scope, at);
    if (!verdict.ok) {
      throw new PlatformError(
        429,
        'too.many.requests',
        `Rate limit exceeded (${verdict.scope}): retry after ${verdict.retryAfterSeconds} s`,
        { 'retry-after': String(verdict.retryAfterSeconds) },
      );
    }
  });

  app.addHook('onResponse', async (req, reply) => {
    // A request refused for its token has no bot: the default bot's log keeps it, as with one bot.
    ((req as { sandboxBot?: SandboxBot }).sandboxBot ?? bots.default).log.add({
      time: (req as { arrivedAt?: number }).arrivedAt ?? wallTime(),
      method: req.method,
      path: req.url.split('?')[0]!,
      op: opOf(req),
      chat: (req as { chatScope?: number }).chatScope,
      status: reply.statusCode,
    });
  });

  perBotRoutes(app, bots.default, registerBotApiRoutes, botOfRequest);
}

/** Every endpoint of the Bot API, for one bot's platform. */
function registerBotApiRoutes(app: FastifyInstance, { platform: p }: SandboxBot): void {
  registerMeRoutes(app, p);
  registerChatRoutes(app, p);
  registerMemberRoutes(app, p);
  registerMessageRoutes(app, p);
  registerCommentRoutes(app, p);
  registerAnswerRoutes(app, p);
  registerUploadRoutes(app, p);
  registerSubscriptionRoutes(app, p);
  registerUpdateRoutes(app, p);
}
