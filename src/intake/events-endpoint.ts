/**
 * The events endpoint: external events over HTTP, into the inbox through an `EventSender`.
 *
 *   POST /events              Authorization: Bearer <key>    { name, to, payload?, key? }
 *   POST /events/mini-app     Authorization: tma <initData>  { name, payload?, key? }
 *
 * The first is for your own systems (a shop's backend, a queue): a key of `keys` (several, for rotation),
 * compared in constant time over equal-length digests. The second is for a mini-app's page: the signed
 * `initData` the messenger gave it names the person, so the event goes to them; only the names in
 * `miniApp.events` may be sent that way. Both answer 200 `{ accepted, id, conversation }` once the event is
 * durable (`accepted: false`: a duplicate of an earlier one with the same key). Errors are JSON
 * `{ error: { code, message, problems? } }`: 401 no valid key, 400 not a JSON object as application/json,
 * 413 larger than `maxBody`, 422 the event breaks a rule (`problems`), 403 a name a mini-app may not send,
 * 503 not stored. Neither the key nor the payload is logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginCallback,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import type { BotflowCode } from '../errors/catalogue.ts';
import { BotflowError } from '../errors/index.ts';
import {
  type EventAddress,
  EventInvalidError,
  type EventSender,
  eventProblems,
  MAX_EVENT_PAYLOAD_BYTES,
  type OutsideEvent,
} from '../inbox/event-entry.ts';
import { systemClock } from '../store/ports/clock.ts';
import { MiniAppDataError, type MiniAppInitData, validateInitData } from './mini-app.ts';

/** Room for the envelope (name, address, key) around the largest payload. */
const ENVELOPE_BYTES = 16 * 1024;
/** The default body limit: the largest payload and its envelope. */
export const DEFAULT_EVENTS_MAX_BODY = MAX_EVENT_PAYLOAD_BYTES + ENVELOPE_BYTES;
/** The header a sender may give its idempotency key in (the body's `key` wins). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** Where mini-apps may send events from, and which. */
export interface MiniAppEventsOptions {
  /** The bot token: `initData` is signed with it. */
  token: string;
  /** The event names a mini-app may send (`order_form`); any other is refused with 403. */
  events: readonly string[];
  /** How old `initData` may be, in seconds (default 3600). */
  maxAgeSeconds?: number;
  /** Origins (`https://shop.example.com`) whose pages may call the endpoint from a browser (CORS). */
  origins?: readonly string[];
}

/** Options of `eventsEndpoint`. */
export interface EventsEndpointOptions {
  /** Stores the events: `bot.events`, or any `EventSender`. */
  sender: EventSender;
  /** The keys a sender may present as `Authorization: Bearer <key>`; none: `POST <path>` refuses everyone. */
  keys?: readonly string[];
  /** The route (default `/events`); mini-apps post to `<path>/mini-app`. */
  path?: string;
  /** The largest body in bytes (default 80 KB: a 64 KB payload and its envelope); larger gets 413. */
  maxBody?: number;
  /** Accept mini-apps' submissions at `<path>/mini-app`; absent: that route is not served. */
  miniApp?: MiniAppEventsOptions;
  /** The time, in ms (default: the system clock, `systemClock.now`): for `initData`'s age. */
  now?: () => number;
  /** Warnings and failures (never the key nor the payload); nothing is logged without it. */
  logger?: Logger;
}

/** An error answer of the endpoint. */
export interface EventsErrorBody {
  error: { code: BotflowCode; message: string; problems?: string[] };
}

class EndpointError extends BotflowError {
  override name = 'EndpointError';
  constructor(
    readonly status: number,
    code: BotflowCode,
    message: string,
    readonly problems?: string[],
  ) {
    super(code, message);
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether `given` is one of `keys` (as digests). Every key is compared, whatever matched, so that the time
 * taken says nothing about which key or how much of it was right.
 */
function keyMatches(keys: readonly Buffer[], given: string | undefined): boolean {
  if (given === undefined) return false;
  const candidate = digest(given);
  let found = false;
  for (const key of keys) found = timingSafeEqual(key, candidate) || found;
  return found;
}

/** The credentials of `Authorization: <scheme> <value>`, when the scheme is `scheme` (any case). */
function credentials(request: FastifyRequest, scheme: string): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== scheme) return undefined;
  const value = header.slice(space + 1).trim();
  return value === '' ? undefined : value;
}

const unauthorized = () =>
  new EndpointError(
    401,
    'BOTFLOW_EVENTS_UNAUTHORIZED',
    'no valid key: send Authorization: Bearer <one of events.keys>',
  );

/** The request's JSON object (the body as parsed), or a 400. */
function bodyObject(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new EndpointError(
      400,
      'BOTFLOW_EVENTS_REQUEST_INVALID',
      'the body must be a JSON object: { "name": …, "to": …, "payload": … }',
    );
  return body as Record<string, unknown>;
}

function headerKey(request: FastifyRequest): string | undefined {
  const value = request.headers[IDEMPOTENCY_HEADER];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The endpoint's settings, checked: its path, body limit, key digests, mini-app settings and clock. */
function endpointSettings(options: EventsEndpointOptions) {
  const path = (options.path ?? '/events').replace(/\/+$/, '') || '/events';
  const maxBody = options.maxBody ?? DEFAULT_EVENTS_MAX_BODY;
  if (!Number.isSafeInteger(maxBody) || maxBody < 1024)
    throw new BotflowError(
      'BOTFLOW_OPTIONS_INVALID',
      `events endpoint: maxBody ${maxBody}: at least 1024 bytes`,
    );
  const keys = (options.keys ?? []).map((key) => {
    if (typeof key !== 'string' || key.length < 16)
      throw new BotflowError(
        'BOTFLOW_OPTIONS_INVALID',
        'events endpoint: every key must be at least 16 characters (e.g. openssl rand -hex 32)',
      );
    return digest(key);
  });
  const miniApp = options.miniApp;
  if (miniApp && (typeof miniApp.token !== 'string' || miniApp.token === ''))
    throw new BotflowError('BOTFLOW_OPTIONS_INVALID', 'events endpoint: miniApp needs the bot token');
  const now = options.now ?? systemClock.now;

  return { path, maxBody, keys, miniApp, now };
}

type Settings = ReturnType<typeof endpointSettings>;

/** Only JSON bodies: anything else (or JSON that does not parse) is the endpoint's 400. */
function jsonOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, parsed) => {
    try {
      parsed(null, JSON.parse(text as string));
    } catch {
      parsed(new EndpointError(400, 'BOTFLOW_EVENTS_REQUEST_INVALID', 'the body is not valid JSON'));
    }
  });
  app.addContentTypeParser('*', (_request, _payload, parsed) => {
    parsed(
      new EndpointError(
        400,
        'BOTFLOW_EVENTS_REQUEST_INVALID',
        'send the event as JSON, with Content-Type: application/json',
      ),
    );
  });
}

/** Sends an event whose shape is right, or answers why not (400), or that it could not be stored (503). */
async function sendEvent(options: EventsEndpointOptions, event: OutsideEvent, reply: FastifyReply) {
  // The shape is checked here whatever the sender (the payload's schema is the sender's to check).
  const problems = eventProblems(event);
  if (problems.length > 0) throw new EventInvalidError(problems);
  let receipt: Awaited<ReturnType<EventSender['send']>>;
  try {
    receipt = await options.sender.send(event);
  } catch (error) {
    if (error instanceof EventInvalidError) throw error;
    options.logger?.error({ err: error, event: event.name }, 'an event could not be stored');
    throw new EndpointError(
      503,
      'BOTFLOW_EVENTS_UNAVAILABLE',
      'the event could not be stored: send it again later (with the same key)',
    );
  }
  return reply.code(200).send(receipt);
}

/** POST <path>: an event from a system that holds one of the keys. */
function keyRoute(
  app: FastifyInstance,
  options: EventsEndpointOptions,
  { path, maxBody, keys }: Settings,
): void {
  app.post(
    path,
    {
      bodyLimit: maxBody,
      onRequest: async (request) => {
        if (!keyMatches(keys, credentials(request, 'bearer'))) throw unauthorized();
      },
    },
    async (request, reply) => {
      const body = bodyObject(request);
      const key = body.key ?? headerKey(request);
      const event = {
        name: body.name,
        to: body.to,
        ...(body.payload !== undefined ? { payload: body.payload } : {}),
        ...(key !== undefined ? { key } : {}),
      } as OutsideEvent;
      return sendEvent(options, event, reply);
    },
  );
}

/** POST <path>/mini-app: an event from a mini-app, sent as the person who opened it. */
function miniAppRoute(
  app: FastifyInstance,
  options: EventsEndpointOptions,
  { path, maxBody, now }: Settings,
  miniApp: NonNullable<Settings['miniApp']>,
  cors: ReturnType<typeof allowOrigins> | undefined,
): void {
  const allowed = new Set(miniApp.events);
  app.post(
    `${path}/mini-app`,
    { bodyLimit: maxBody, ...(cors ? { onRequest: cors } : {}) },
    async (request, reply) => {
      const initData = credentials(request, 'tma');
      if (initData === undefined)
        throw new EndpointError(
          401,
          'BOTFLOW_EVENTS_UNAUTHORIZED',
          "send the mini-app's initData as Authorization: tma <window.WebApp.initData>",
        );
      const person = validateInitData(initData, miniApp.token, {
        maxAgeSeconds: miniApp.maxAgeSeconds ?? 3600,
        now: now(),
      });
      const body = bodyObject(request);
      if (typeof body.name === 'string' && !allowed.has(body.name))
        throw new EndpointError(
          403,
          'BOTFLOW_EVENT_NOT_ALLOWED',
          `a mini-app may not send "${body.name.slice(0, 64)}": list it in events.miniApp`,
        );
      if (body.to !== undefined)
        throw new EventInvalidError([
          'to: a mini-app\'s event goes to the person who opened it; leave "to" out',
        ]);
      return sendEvent(options, miniAppEvent(person, body, headerKey(request)), reply);
    },
  );
}

/** The endpoint as a fastify plugin: register it on an app of yours (its parsers and errors stay inside). */
export function eventsEndpoint(options: EventsEndpointOptions): FastifyPluginCallback {
  const settings = endpointSettings(options);
  const { path, miniApp } = settings;
  return (app, _options, done) => {
    jsonOnly(app);
    app.setErrorHandler((error: FastifyError, request, reply) => sendError(error, request, reply, options));
    // A route-level hook, so that it holds under any prefix the plugin is registered with.
    const cors = miniApp?.origins?.length
      ? allowOrigins(app, `${path}/mini-app`, miniApp.origins)
      : undefined;
    keyRoute(app, options, settings);
    if (miniApp) miniAppRoute(app, options, settings, miniApp, cors);
    done();
  };
}

/** The event a mini-app's body makes: to the person of `initData` (in its chat, if it names one). */
function miniAppEvent(
  person: MiniAppInitData,
  body: Record<string, unknown>,
  header: string | undefined,
): OutsideEvent {
  const userId = person.user?.id;
  if (!Number.isSafeInteger(userId))
    throw new MiniAppDataError(
      'BOTFLOW_INIT_DATA_INVALID',
      'initData names no user: open the mini-app from a chat',
    );
  const chatId = person.chat?.id;
  const to: EventAddress = Number.isSafeInteger(chatId)
    ? { chatId: chatId as number, userId: userId as number }
    : { userId: userId as number };
  // Keys are the person's own: one person's key never makes another person's event a duplicate.
  const given = body.key ?? header ?? (typeof person.query_id === 'string' ? person.query_id : undefined);
  const key = typeof given === 'string' && given !== '' ? `mini-app:${userId}:${given}` : given;
  return {
    name: body.name as string,
    to,
    ...(body.payload !== undefined ? { payload: body.payload } : {}),
    ...(key !== undefined ? { key: key as string } : {}),
  };
}

/**
 * Answers browsers' preflight requests at `path`; returns the hook that marks the route's answers readable
 * for pages of `origins`.
 */
function allowOrigins(
  app: FastifyInstance,
  path: string,
  origins: readonly string[],
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const allowed = new Set(origins.map((o) => o.replace(/\/+$/, '')));
  const mark = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || !allowed.has(origin)) return false;
    reply.header('access-control-allow-origin', origin);
    reply.header('vary', 'Origin');
    return true;
  };
  app.options(path, async (request, reply) => {
    if (!mark(request, reply)) return reply.code(403).send();
    reply.header('access-control-allow-methods', 'POST');
    reply.header('access-control-allow-headers', `authorization, content-type, ${IDEMPOTENCY_HEADER}`);
    reply.header('access-control-max-age', '600');
    return reply.code(204).send();
  });
  return async (request, reply) => {
    mark(request, reply);
  };
}

function sendError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  options: EventsEndpointOptions,
): FastifyReply {
  const answer = (status: number, code: BotflowCode, message: string, problems?: string[]) => {
    const body: EventsErrorBody = { error: { code, message, ...(problems ? { problems } : {}) } };
    if (status === 401)
      reply.header('www-authenticate', request.url.includes('/mini-app') ? 'tma' : 'Bearer');
    return reply.code(status).send(body);
  };
  if (error instanceof EndpointError)
    return answer(error.status, error.botflowCode, error.message, error.problems);
  if (error instanceof EventInvalidError)
    return answer(422, 'BOTFLOW_EVENT_INVALID', 'the event was refused: see problems', error.problems);
  if (error instanceof MiniAppDataError) return answer(401, error.botflowCode, error.message);
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413)
    return answer(
      413,
      'BOTFLOW_EVENTS_TOO_LARGE',
      `the body is larger than ${options.maxBody ?? DEFAULT_EVENTS_MAX_BODY} bytes (events.maxBody)`,
    );
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
    return answer(400, 'BOTFLOW_EVENTS_REQUEST_INVALID', error.message);
  request.log.error({ err: error }, 'events endpoint failed');
  return answer(503, 'BOTFLOW_EVENTS_UNAVAILABLE', 'the event could not be handled: send it again later');
}

/** Options of `buildEventsServer`: the endpoint's, and where to log. */
export interface EventsServerOptions extends EventsEndpointOptions {
  /** More routes on the same app (health checks). */
  routes?: FastifyPluginCallback;
}

/** The endpoint as an app of its own: `listen({host, port})` it, or `inject()` in a test. */
export function buildEventsServer(options: EventsServerOptions): FastifyInstance {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger as FastifyBaseLogger } : {}),
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.register(eventsEndpoint(options));
  if (options.routes) app.register(options.routes);
  return app;
}
