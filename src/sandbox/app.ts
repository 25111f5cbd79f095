/**
 * `buildSandbox(options)`: the whole local platform as one fastify app: the Bot API, the upload host,
 * file URLs and the people's control API under `/_sandbox/`. Extra plugins (e.g. the web chat page)
 * are registered beside them.
 */
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import {
  DEFAULT_BOT_ID,
  type NewBot,
  type PollSnapshot,
  type SandboxBot,
  SandboxBots,
  usernameFrom,
} from './bots.ts';
import { registerControlRoutes } from './control/routes.ts';
import { UpdateHub } from './delivery/hub.ts';
import { DEFAULT_WEBHOOK_OPTIONS, type WebhookOptions } from './delivery/webhook.ts';
import { badRequest, PlatformError } from './errors.ts';
import { PeopleFeed } from './feed.ts';
import { FileStore } from './files.ts';
import { type LimitOptions, PLATFORM_LIMITS } from './limits.ts';
import { guardLocalRoutes } from './local-routes.ts';
import { perBotRoutes } from './per-bot.ts';
import { SandboxStore } from './persistence.ts';
import { Platform } from './platform.ts';
import type { RequestLog } from './request-log.ts';
import { botApiPlugin } from './routes/index.ts';
import { registerUploadHost, registerUploadParser } from './routes/uploads.ts';
import { emptyData, type MediaKind, type SandboxData } from './state.ts';

/** How to build a sandbox. Every field is optional. */
export interface SandboxOptions {
  /** The (default) bot's token clients must send; default a fresh `sandbox-token-…`. */
  token?: string;
  /**
   * The bots the sandbox hosts (docs/sandbox.md, "Several bots"): the first is the default bot (`token`
   * and `bot`, when given, win for it), the others get their own token (given, else a fresh one), id,
   * chats, updates, webhooks and limits. Default: one bot.
   */
  bots?: NewBot[];
  /** The platform's limits (default 30/s overall, 2/s per chat); `false` turns them off; `scale` multiplies them. */
  limits?: false | LimitOptions;
  /**
   * `fast` (default): tests stay quick (uploads process in 0.3–2 s, webhook retries 1 s then doubling).
   * `realistic`: the platform's pace (uploads 2–15 s, webhook retries 30 s then 60 s apart), for slow
   * end-to-end tests and for trying a bot as people will meet it. Explicit options below still win.
   */
  timing?: 'fast' | 'realistic';
  /** How long an upload stays "processing" (ms, sandbox clock). Defaults: image 300, video 2000, audio 1000, file 300. */
  attachmentProcessingMs?: Partial<Record<MediaKind, number>>;
  /** A webhook failing for this long is unsubscribed (default 8 h, as the platform). */
  webhookGiveUpMs?: number;
  /** Finer webhook knobs: timeout (30 s), first retry delay (1 s), max retry delay (60 s). */
  webhook?: Partial<WebhookOptions>;
  /** The clock every timestamp and processing delay reads (ms since the epoch); default `Date.now`. */
  now?: () => number;
  /** Keep the state in this SQLite file (created when missing); default in memory. */
  dbPath?: string;
  /** Structured logger for the sandbox's own events (never receives the token). */
  logger?: Logger;
  /** The bot's identity. */
  bot?: { first_name?: string; username?: string; description?: string };
  /**
   * Show notification-only callback answers (POST /answers with just `notification`) to people, marked
   * "not shown on the platform". Default false: the platform's clients do not display them.
   */
  showNotificationOnlyAnswers?: boolean;
  /**
   * Shares (0..1) of button presses whose `message_callback` comes without `message`, or (in dialogs)
   * with `message.recipient` lacking `chat_id`, as the platform sometimes sends them. Default 0: always
   * complete. The shares are exact and deterministic (every 1/share-th press), not random.
   */
  callbackVariants?: { withoutMessage?: number; withoutChatId?: number };
  /**
   * In group chats a bot without `read_all_messages` gets only commands, mentions of it and replies to
   * its messages (default true: the conservative reading where the spec is silent); false delivers all.
   */
  groupPrivacy?: boolean;
  /** Report legacy permission names (post_edit_delete_message, …) next to the new ones; default true. */
  legacyPermissionNames?: boolean;
  /** Public origin (scheme://host:port) used in upload and file URLs; `startSandbox` sets it. */
  origin?: string;
  /** Extra fastify plugins registered on the app (e.g. the web chat page). */
  plugins?: FastifyPluginAsync[];
  /**
   * Host names, besides `localhost` and IP addresses, under which the local pages (`/`, `/_sandbox/`,
   * `/_inspector/`, files) answer; other Host headers get 403 (a guard against DNS rebinding).
   */
  allowedHosts?: string[];
  /**
   * `GET /_sandbox/info` includes the bot token (`token`), for a developer's own mini-app server to
   * validate or sign initData. Only a token the sandbox made itself is ever shown (never one given in
   * `token`), and `startSandbox` shows it only on a loopback interface. Default false.
   */
  showToken?: boolean;
}

/** What the sandbox exposes to in-process users (tests, the CLI, plugins). */
export interface SandboxInternals {
  /** The default bot's platform. */
  platform: Platform;
  /** The default bot's Bot API requests. */
  requestLog: RequestLog;
  /** The default bot's token. */
  token: string;
  /** Whether `/_sandbox/info` shows the default bot's token (see `showToken`). */
  tokenShown: boolean;
  /** Every hosted bot (the default one first). */
  bots: SandboxBots;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The sandbox behind this app. */
    sandbox: SandboxInternals;
  }
}

export const DEFAULT_PROCESSING_MS: Record<MediaKind, number> = {
  image: 300,
  video: 2000,
  audio: 1000,
  file: 300,
};

/**
 * The `realistic` timing profile: processing and retry delays of the order the platform shows (a photo
 * takes seconds to process, a video many; a failed webhook delivery is retried 30 s, then 60 s later).
 */
export const REALISTIC_TIMING = {
  attachmentProcessingMs: { image: 2_000, video: 15_000, audio: 5_000, file: 2_000 } as Record<
    MediaKind,
    number
  >,
  webhook: { firstRetryDelayMs: 30_000, maxRetryDelayMs: 60_000 },
};

/** How every bot's platform is built: its hub (webhooks, long polling), its feed, the shared settings. */
function platformMaker(options: SandboxOptions) {
  const now = options.now ?? Date.now;
  const realistic = options.timing === 'realistic';
  const webhookOptions = {
    ...DEFAULT_WEBHOOK_OPTIONS,
    ...(realistic ? REALISTIC_TIMING.webhook : {}),
    ...options.webhook,
  };
  if (options.webhookGiveUpMs !== undefined) webhookOptions.giveUpMs = options.webhookGiveUpMs;
  const settings = {
    now,
    attachmentProcessingMs: {
      ...(realistic ? REALISTIC_TIMING.attachmentProcessingMs : DEFAULT_PROCESSING_MS),
      ...options.attachmentProcessingMs,
    },
    legacyPermissionNames: options.legacyPermissionNames ?? true,
    showNotificationOnlyAnswers: options.showNotificationOnlyAnswers ?? false,
    callbackVariants: { withoutMessage: 0, withoutChatId: 0, ...options.callbackVariants },
    groupPrivacy: options.groupPrivacy ?? true,
    ...(options.logger ? { logger: options.logger } : {}),
  };
  return (data: SandboxData, poll?: PollSnapshot): Platform => {
    let platform: Platform;
    const hub = new UpdateHub(
      () => platform.data.subscriptions,
      webhookOptions,
      (url) => {
        platform.data.subscriptions = platform.data.subscriptions.filter((s) => s.url !== url);
      },
      options.logger,
    );
    if (poll) hub.poll.restore(poll);
    platform = new Platform(data, settings, hub, new PeopleFeed());
    if (options.origin) platform.origin = options.origin;
    return platform;
  };
}

/**
 * The hosted bots, loaded from `dbPath` when saved there: the default bot (`token`, else the first of
 * `bots`), the bots saved with the state, then those of `bots` not among them (matched by username or name).
 */
function sandboxBots(options: SandboxOptions) {
  const now = options.now ?? Date.now;
  const store = options.dbPath ? new SandboxStore(options.dbPath) : undefined;
  const saved = store?.load();
  const [first, ...rest] = options.bots ?? [];
  const data =
    saved?.data ??
    emptyData({
      user_id: DEFAULT_BOT_ID,
      first_name: options.bot?.first_name ?? first?.name ?? 'Sandbox Bot',
      username:
        options.bot?.username ?? first?.username ?? (first ? usernameFrom(first.name) : 'sandbox_bot'),
      description: options.bot?.description ?? 'A bot running in the botflow sandbox',
      is_bot: true,
      last_activity_time: now(),
    });
  const bots = new SandboxBots(platformMaker(options), options.limits, PLATFORM_LIMITS);
  bots.attach(bots.make(data, saved?.poll), options.token ?? first?.token);
  const wanted = [...rest];
  const sameBot = (a: NewBot, b: SandboxData['bot']) =>
    a.username ? a.username.toLowerCase() === b.username?.toLowerCase() : a.name === b.first_name;
  for (const bot of saved?.bots ?? []) {
    const i = wanted.findIndex((w) => sameBot(w, bot.data.bot));
    bots.restore(bot, i >= 0 ? wanted.splice(i, 1)[0]!.token : undefined);
  }
  for (const bot of wanted) bots.add(bot, now());
  return { bots, store };
}

/** Lenient JSON: an empty body is no body; a malformed one is the platform's 400. */
function lenientJson(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body).trim();
    if (!text) return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(badRequest(`Malformed JSON body: ${(err as Error).message}`), undefined);
    }
  });
}

/** Errors as the platform shapes them: its own codes, 413, 400 for a bad request, else 500 (logged). */
function platformErrors(app: FastifyInstance, logger: SandboxOptions['logger']): void {
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof PlatformError) {
      return reply.code(err.status).headers(err.headers).send({ code: err.code, message: err.message });
    }
    const e = err as { statusCode?: number; code?: string; message: string };
    if (e.statusCode === 413) return reply.code(413).send({ code: 'payload.too.large', message: e.message });
    if (e.statusCode && e.statusCode < 500) {
      return reply.code(400).send({ code: 'proto.payload', message: e.message });
    }
    logger?.error({ err }, 'sandbox internal error');
    return reply.code(500).send({ code: 'internal.error', message: e.message });
  });
}

/** Every registered path with its methods, so a wrong verb on an existing path is 405, not 404. */
function methodNotAllowed(app: FastifyInstance): void {
  const routeTable: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')}/?$`);
    const methods = ([] as string[]).concat(route.method);
    const known = routeTable.find((r) => r.pattern.source === pattern.source);
    if (known) for (const m of methods) known.methods.add(m);
    else routeTable.push({ pattern, methods: new Set(methods) });
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    const allowed = routeTable.filter((r) => r.pattern.test(path)).flatMap((r) => [...r.methods]);
    if (allowed.length > 0) {
      const allow = [...new Set(allowed)].filter((m) => m !== 'HEAD').join(', ');
      return reply
        .code(405)
        .header('allow', allow)
        .send({
          code: 'method.not.allowed',
          message: `${req.method} is not allowed on ${path}; use ${allow}`,
        });
    }
    return reply.code(404).send({ code: 'not.found', message: `No such endpoint: ${req.method} ${path}` });
  });
}

/** Saves after each change (with `dbPath`), and closes the hubs, the feeds and the store with the app. */
function persistence(app: FastifyInstance, { bots, store }: ReturnType<typeof sandboxBots>): void {
  const state = () => ({
    data: bots.default.platform.data,
    poll: bots.default.platform.hub.poll,
    bots: bots.saved(),
  });
  if (store) {
    bots.onChange = () => store.scheduleSave(state);
    app.addHook('onResponse', async (req) => {
      if (req.method !== 'GET') store.scheduleSave(state);
    });
  }
  app.addHook('preClose', async () => bots.close());
  app.addHook('onClose', async () => store?.close(state()));
}

/** Builds the sandbox app (not listening yet). */
export async function buildSandbox(options: SandboxOptions = {}): Promise<FastifyInstance> {
  const parts = sandboxBots(options);
  const { bots } = parts;
  const { platform, token, tokenMade, log: requestLog } = bots.default;
  // Its own tokens only: one given in `token` or `bots` may be a real platform's, and is never shown.
  const showToken = options.showToken === true;
  const tokenShown = showToken && tokenMade;
  const files = new FileStore();

  // The sandbox logs its own events through options.logger; fastify's per-request logging stays off.
  const app = Fastify({ bodyLimit: 8 * 1024 * 1024 });
  app.decorate('sandbox', { platform, requestLog, token, tokenShown, bots });
  guardLocalRoutes(app, options.allowedHosts ?? []);
  lenientJson(app);
  platformErrors(app, options.logger);
  methodNotAllowed(app);
  persistence(app, parts);

  await app.register(botApiPlugin, { bots });
  await app.register(async (host) => {
    registerUploadParser(host);
    perBotRoutes(
      host,
      bots.default,
      (a, bot) => registerUploadHost(a, bot.platform, files, bot.token),
      (req) => uploadBot(bots, req),
    );
  });
  await app.register(async (control) => registerControlRoutes(control, bots, files, showToken));
  for (const plugin of options.plugins ?? []) await app.register(plugin);
  return app;
}

/** The bot an upload URL was given to (slot ids are unique across bots); files are the default's. */
function uploadBot(bots: SandboxBots, req: FastifyRequest): SandboxBot {
  const slot = (req.params as { slot_id?: string }).slot_id;
  if (slot === undefined) return bots.default;
  return bots.all().find((b) => slot in b.platform.data.uploads) ?? bots.default;
}
