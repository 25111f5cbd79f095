/**
 * The webhook receiver: a fastify app that accepts one update per POST, commits it to the inbox (group
 * commit) and only then answers 200. Wrong or missing secret → 401 before the body is read; body too large
 * → 413; not JSON or not an update → 400; storage failure → 503 so that the platform delivers again.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type Database from 'better-sqlite3';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginCallback,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import { BotflowError } from '../errors/index.ts';
import { type InboxCommit, InboxWriter, type OnAccepted } from '../inbox/inbox-writer.ts';
import type { ConversationKeyStrategy } from '../inbox/keys.ts';
import { InvalidUpdateError, updateEntry } from '../inbox/update-entry.ts';
import { InboxStore } from '../store/inbox.ts';

/** The header the spec names, and the one the public platform sends with the same value. */
export const SECRET_HEADERS = ['x-svc-bot-api-secret', 'x-max-bot-api-secret'] as const;

/** A subscription secret as the platform accepts it: 5..256 characters of A-Z a-z 0-9 _ -. */
export const SECRET_PATTERN = /^[A-Za-z0-9_-]{5,256}$/;

/** Options of `buildWebhook` and `webhookIntake`. */
export interface WebhookReceiverOptions {
  /** The SQLite database the inbox lives in (`openDatabase`); not needed when `commit` stores the updates. */
  db?: Database.Database;
  /**
   * The subscription secret. When set, every request must carry it in `X-Svc-Bot-Api-Secret` (or
   * `X-Max-Bot-Api-Secret`). Leave it unset only behind something else that authenticates the platform.
   */
  secret?: string;
  /** The route the platform posts to (default `/webhook`). */
  path?: string;
  /** Largest accepted body in bytes (default 1 MiB); larger ones get 413. */
  bodyLimit?: number;
  /** How conversation keys are derived (default `user-in-chat`). */
  conversationKey?: ConversationKeyStrategy;
  /** Called after each commit that added rows: the engine's wake-up call. */
  onAccepted?: OnAccepted;
  /**
   * Commits elsewhere than `db` on this thread: the engine's writer thread (`(entries) =>
   * writer.append(entries)`) or PostgreSQL (`(entries) => new PgInbox(pool).append(entries)`).
   */
  commit?: InboxCommit;
  /** Commit at once when this many updates wait (default 500); otherwise once per event-loop turn. */
  maxBatch?: number;
  /** Where fastify and intake log; nothing is logged without it. */
  logger?: Logger;
  /** Log every request (default false: at thousands of updates per second this is mostly noise). */
  logRequests?: boolean;
}

/** The error body the receiver answers with, shaped like the platform's own errors. */
interface ErrorBody {
  code: string;
  message: string;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Compares in constant time over fixed-length digests, so neither content nor length leaks. */
function secretMatches(expected: Buffer, given: string | string[] | undefined): boolean {
  if (typeof given !== 'string') return false;
  return timingSafeEqual(expected, digest(given));
}

/** Builds the receiver as an app of its own. Start it with `app.listen({port, host})`, test it with `app.inject()`. */
export function buildWebhook(options: WebhookReceiverOptions): FastifyInstance {
  const intake = webhookIntake(options);
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger as FastifyBaseLogger } : {}),
    logController: new LogController({ disableRequestLogging: !options.logRequests }),
  });
  app.register(intake.plugin);
  app.addHook('onClose', () => intake.stop());
  return app;
}

/** The receiver as a fastify plugin for an app of yours, and the way to stop it. */
export interface WebhookIntake {
  /**
   * Serves `POST <path>` (default `/webhook`) under the prefix it is registered with; its content-type
   * parsing, secret check and error handler stay inside the plugin, so the rest of your app is untouched.
   *
   *   app.register(intake.plugin, { prefix: '/bot' }); // POST /bot/webhook
   */
  plugin: FastifyPluginCallback;
  /** Stops accepting (later deliveries get 503, so the platform delivers them again) and commits what was accepted. */
  stop(): Promise<void>;
}

/** The receiver, ready to mount on an existing fastify app (`buildWebhook` mounts it on one of its own). */
export function webhookIntake(options: WebhookReceiverOptions): WebhookIntake {
  if (options.secret !== undefined && !SECRET_PATTERN.test(options.secret)) {
    throw new BotflowError(
      'BOTFLOW_OPTIONS_INVALID',
      'webhook secret: must be 5..256 characters of A-Z, a-z, 0-9, "_" and "-" (the platform refuses others)',
    );
  }
  if (!options.db && !options.commit)
    throw new BotflowError(
      'BOTFLOW_OPTIONS_INVALID',
      'webhook receiver: give it a database (db) or a commit function',
    );
  const writer = new InboxWriter({
    ...(options.db ? { inbox: new InboxStore(options.db) } : {}),
    maxBatch: options.maxBatch,
    ...(options.commit ? { commit: options.commit } : {}),
    onAccepted: options.onAccepted,
    logger: options.logger,
  });
  const state = { stopped: false };
  if (options.secret === undefined)
    options.logger?.warn('webhook receiver without a secret: anyone who learns its URL can post updates');
  return {
    plugin: (app, _options, done) => {
      installWebhook(app, options, writer, state);
      done();
    },
    async stop() {
      state.stopped = true;
      await writer.flush();
    },
  };
}

function installWebhook(
  app: FastifyInstance,
  options: WebhookReceiverOptions,
  writer: InboxWriter,
  state: { stopped: boolean },
): void {
  const path = options.path ?? '/webhook';
  const strategy = options.conversationKey ?? 'user-in-chat';

  // Any content type: the platform sends JSON, and a receiver is no place to be strict about headers.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  const expected = options.secret === undefined ? undefined : digest(options.secret);
  if (expected) {
    app.addHook('onRequest', async (request, reply) => {
      const given = request.headers[SECRET_HEADERS[0]] ?? request.headers[SECRET_HEADERS[1]];
      if (!secretMatches(expected, given)) {
        const body: ErrorBody = {
          code: 'verify.secret',
          message: given === undefined ? 'missing webhook secret header' : 'wrong webhook secret',
        };
        return reply.code(401).send(body);
      }
    });
  }

  app.post(path, { bodyLimit: options.bodyLimit ?? 1024 * 1024 }, async (request, reply) => {
    if (state.stopped) {
      return reply.code(503).send({
        code: 'intake.stopped',
        message: 'the bot is stopping; deliver it again',
      } satisfies ErrorBody);
    }
    const text = typeof request.body === 'string' ? request.body : '';
    let entry: ReturnType<typeof updateEntry>;
    try {
      entry = updateEntry(text, strategy);
    } catch (error) {
      if (!(error instanceof InvalidUpdateError)) throw error;
      return reply.code(400).send({ code: 'proto.payload', message: error.message } satisfies ErrorBody);
    }
    try {
      await writer.submit(entry);
    } catch {
      // Not acknowledged, so the platform delivers it again later; the cause is logged by the writer.
      return reply
        .code(503)
        .send({ code: 'inbox.unavailable', message: 'the update could not be stored; deliver it again' });
    }
    return { ok: true };
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status =
      error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'webhook receiver failed');
    const code = status === 413 ? 'payload.too.large' : status === 500 ? 'internal' : 'proto.payload';
    return reply.code(status).send({ code, message: error.message } satisfies ErrorBody);
  });
}
