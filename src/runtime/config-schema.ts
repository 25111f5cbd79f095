/**
 * The shape of botflow's configuration, written once: the zod schema that validates it and the table of
 * keys that says, for each setting, its environment variable, its command-line flag and what it is for.
 * `config.ts` merges the sources and reports problems; docs/running.md documents the same table.
 */
import { z } from 'zod';
import { EVENT_NAME, MAX_EVENT_PAYLOAD_BYTES } from '../inbox/event-entry.ts';
import { BotsSchema } from './config-bots.ts';

/** The production platform's API address; the default base URL when a token is configured. */
export const PLATFORM_BASE_URL = 'https://platform-api2.max.ru';

const port = z.int().min(0).max(65535);
const updateTypes = z.array(z.string().regex(/^[a-z_]+$/, 'an update type such as message_created'));

/** `events.maxBody`'s default: the largest payload and 16 KB of envelope. */
export const DEFAULT_EVENTS_MAX_BODY = MAX_EVENT_PAYLOAD_BYTES + 16 * 1024;
const eventName = z
  .string()
  .regex(EVENT_NAME, 'an event name: a letter, then letters, digits, _ . - (at most 64)');

/** Every setting, as it is after merging file, environment and flags (secrets still plain strings). */
export const ConfigSchema = z.strictObject({
  /** The bot token. Without one, botflow runs the embedded default: the sandbox and its web chat. */
  token: z
    .string()
    .min(1)
    .regex(
      /^[\x21-\x7e]+$/,
      'printable ASCII without spaces or line breaks (copy the token again: a trailing newline from a file is the usual cause)',
    )
    .optional(),
  /** The API address; defaults to the production platform when a token is set. */
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'a URL starting with https:// (or http:// for a local test server)' })
    .optional(),
  /** Extra CA certificate files (PEM) to trust for the API host, e.g. the national root and sub CA. */
  caFiles: z.array(z.string().min(1)).default([]),
  /** How updates arrive: `webhook` (production) or `polling` (development). */
  mode: z.enum(['webhook', 'polling']).default('polling'),
  webhook: z
    .strictObject({
      /** Address the webhook receiver listens on (behind your HTTPS proxy). */
      host: z.string().min(1).default('0.0.0.0'),
      port: port.default(8080),
      /** The public HTTPS address the platform posts to; its path is the route the receiver serves. */
      url: z
        .url({ protocol: /^https?$/, error: 'a public https:// URL (the platform refuses plain HTTP)' })
        .refine(
          (url) => url.startsWith('https:') || /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(url),
          'a public https:// URL (the platform refuses plain HTTP; http:// only to 127.0.0.1 with the sandbox)',
        )
        .optional(),
      /** Shared secret the platform sends in X-Svc-Bot-Api-Secret: 5..256 of A-Z a-z 0-9 _ -. */
      secret: z
        .string()
        .regex(/^[A-Za-z0-9_-]{5,256}$/, '5 to 256 characters of A-Z a-z 0-9 _ -')
        .optional(),
      /** Update types to subscribe to; all types when absent. */
      updateTypes: updateTypes.optional(),
    })
    .default({ host: '0.0.0.0', port: 8080 }),
  polling: z
    .strictObject({
      /** Long-poll timeout in seconds (0..90). */
      timeoutSeconds: z.int().min(0).max(90).default(30),
      /** Updates per request (1..1000). */
      limit: z.int().min(1).max(1000).default(100),
      updateTypes: updateTypes.optional(),
    })
    .default({ timeoutSeconds: 30, limit: 100 }),
  database: z
    .strictObject({
      /** SQLite file; `.botflow/sandbox.db` for the embedded default, `botflow.db` otherwise. */
      path: z.string().min(1).optional(),
      /** FULL survives power loss (the webhook acknowledges on commit); NORMAL only a process crash. */
      synchronous: z.enum(['FULL', 'NORMAL']).default('FULL'),
      /** Commit on a second thread (a second core) while the main thread plans and serves HTTP. */
      writerThread: z.boolean().default(true),
      /**
       * PostgreSQL instead of SQLite (`postgres://user:password@host:5432/db`): several `botflow run`
       * processes share it (docs/scaling.md). Kept secret in logs.
       */
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\/\S+$/, 'a postgres:// URL, e.g. postgres://bot:password@db:5432/bot')
        .optional(),
    })
    .default({ synchronous: 'FULL', writerThread: true }),
  health: z
    .strictObject({
      /** A port for `GET /healthz` and `GET /readyz` (webhook mode serves them on the webhook port too). */
      port: port.optional(),
      host: z.string().min(1).default('0.0.0.0'),
    })
    .default({ host: '0.0.0.0' }),
  events: z
    .strictObject({
      /** Keys your systems send as `Authorization: Bearer <key>` to `POST /events`; several while rotating. */
      keys: z
        .array(
          z
            .string()
            .min(16, 'at least 16 characters (e.g. openssl rand -hex 32)')
            .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
        )
        .optional(),
      /** The route; mini-apps post to `<path>/mini-app`. */
      path: z
        .string()
        .regex(/^\/[A-Za-z0-9/_.-]*[A-Za-z0-9_.-]$/, 'a path such as /events')
        .default('/events'),
      /** The largest request body in bytes. */
      maxBody: z
        .int()
        .min(1024)
        .max(1024 * 1024)
        .default(DEFAULT_EVENTS_MAX_BODY),
      /** Event names a mini-app may send (authenticated by its initData); none: the mini-app route is off. */
      miniApp: z.array(eventName).optional(),
      /** How old a mini-app's initData may be, in seconds. */
      miniAppMaxAgeSeconds: z.int().min(10).max(86_400).default(3600),
      /** Origins of the mini-app's pages allowed to call from a browser (CORS). */
      miniAppOrigins: z
        .array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'an origin: https://host[:port], without a path'))
        .optional(),
      /** Where the endpoint listens when there is no webhook receiver to serve it (polling, the sandbox). */
      host: z.string().min(1).default('0.0.0.0'),
      port: port.default(8080),
    })
    .default({
      path: '/events',
      maxBody: DEFAULT_EVENTS_MAX_BODY,
      miniAppMaxAgeSeconds: 3600,
      host: '0.0.0.0',
      port: 8080,
    }),
  tasks: z
    .strictObject({
      /** Tasks (the registry's `tasks`) running at once; apart from the platform's request budget. */
      concurrency: z.int().min(1).max(10_000).default(16),
    })
    .default({ concurrency: 16 }),
  flows: z
    .strictObject({
      /** Folder of `*.flow.yaml` files. */
      dir: z.string().min(1).default('flows'),
      /** Reload flows when their files change (new sessions get the new version). */
      watch: z.boolean().optional(),
    })
    .default({ dir: 'flows' }),
  log: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    })
    .default({ level: 'info' }),
  limits: z
    .strictObject({
      /** Requests per second to the API host, all operations together (the platform allows 30). */
      requestsPerSecond: z.int().min(1).max(30).default(30),
      /** Message operations per second per chat (the platform allows 2). */
      perChatPerSecond: z.int().min(1).max(2).default(2),
      /** How long one API request may take before it is abandoned, in ms. */
      requestTimeoutMs: z.int().min(100).max(300_000).default(30_000),
    })
    .default({ requestsPerSecond: 30, perChatPerSecond: 2, requestTimeoutMs: 30_000 }),
  shutdown: z
    .strictObject({
      /** Hard limit for a graceful shutdown, in ms; the process exits when it passes. */
      timeoutMs: z.int().min(1000).max(120_000).default(10_000),
      /** How long sends already started may take to finish during shutdown, in ms. */
      sendDeadlineMs: z.int().min(0).max(60_000).default(5000),
      /** How long `/readyz` answers 503 before intake stops, in ms (a load balancer stops sending first). */
      drainMs: z.int().min(0).max(60_000).default(0),
    })
    .default({ timeoutMs: 10_000, sendDeadlineMs: 5000, drainMs: 0 }),
  sandbox: z
    .strictObject({
      /** Address of the embedded sandbox and its web chat (embedded default only). */
      host: z.string().min(1).default('127.0.0.1'),
      port: port.default(3000),
    })
    .default({ host: '127.0.0.1', port: 3000 }),
  funnel: z
    .strictObject({
      /**
       * Keep what people typed that nothing took (the first 200 characters of each) as samples for the
       * funnel (`botflow stats`, the playground); false keeps only the counts (docs/running.md, "Privacy").
       */
      samples: z.boolean().default(true),
    })
    .default({ samples: true }),
  /** How updates are grouped into conversations: each person per chat, one per chat, or one per person. */
  conversationKey: z.enum(['user-in-chat', 'chat', 'user']).default('user-in-chat'),
  /** Key that signs callback button payloads; derived from the token when absent. */
  buttonSecret: z.string().min(16, 'at least 16 characters').optional(),
  /** Several bots in one deployment (docs/bots.md): a list, or a map by name; top-level settings are their defaults. */
  bots: BotsSchema.optional(),
});

/** The validated settings before secrets are wrapped and paths resolved. */
export type ConfigInput = z.infer<typeof ConfigSchema>;

/** How a string from the environment or a flag becomes a value. */
export type KeyKind = 'string' | 'int' | 'number' | 'boolean' | 'list';

/** One setting that can come from the environment or a flag. */
export interface KeySpec {
  /** Dotted path in the configuration file (`webhook.url`). */
  path: string;
  /** The environment variables that set it, most specific first. */
  env: string[];
  /** The command-line flag that sets it, if any (without `--`). */
  flag?: string;
  kind: KeyKind;
  /** Values containing secrets are never echoed in messages. */
  secret?: boolean;
  /** A path to a file or folder, resolved against the configuration file's folder (or the cwd). */
  isPath?: boolean;
}

/** Every key settable from outside a file. The configuration file accepts the same paths. */
export const KEYS: KeySpec[] = [
  { path: 'token', env: ['BOTFLOW_TOKEN'], kind: 'string', secret: true },
  { path: 'baseUrl', env: ['BOTFLOW_BASE_URL'], flag: 'base-url', kind: 'string' },
  { path: 'caFiles', env: ['BOTFLOW_CA_FILES'], kind: 'list', isPath: true },
  { path: 'mode', env: ['BOTFLOW_MODE'], flag: 'mode', kind: 'string' },
  { path: 'webhook.host', env: ['BOTFLOW_WEBHOOK_HOST'], kind: 'string' },
  { path: 'webhook.port', env: ['BOTFLOW_WEBHOOK_PORT'], kind: 'int' },
  { path: 'webhook.url', env: ['BOTFLOW_WEBHOOK_URL'], kind: 'string' },
  { path: 'webhook.secret', env: ['BOTFLOW_WEBHOOK_SECRET'], kind: 'string', secret: true },
  { path: 'webhook.updateTypes', env: ['BOTFLOW_WEBHOOK_UPDATE_TYPES'], kind: 'list' },
  { path: 'polling.timeoutSeconds', env: ['BOTFLOW_POLLING_TIMEOUT_SECONDS'], kind: 'int' },
  { path: 'polling.limit', env: ['BOTFLOW_POLLING_LIMIT'], kind: 'int' },
  { path: 'polling.updateTypes', env: ['BOTFLOW_POLLING_UPDATE_TYPES'], kind: 'list' },
  { path: 'database.path', env: ['BOTFLOW_DATABASE_PATH'], flag: 'db', kind: 'string', isPath: true },
  { path: 'database.synchronous', env: ['BOTFLOW_DATABASE_SYNCHRONOUS'], kind: 'string' },
  { path: 'database.writerThread', env: ['BOTFLOW_DATABASE_WRITER_THREAD'], kind: 'boolean' },
  {
    path: 'database.url',
    env: ['BOTFLOW_DATABASE_URL'],
    flag: 'database-url',
    kind: 'string',
    secret: true,
  },
  { path: 'funnel.samples', env: ['BOTFLOW_FUNNEL_SAMPLES'], kind: 'boolean' },
  { path: 'health.port', env: ['BOTFLOW_HEALTH_PORT'], kind: 'int' },
  { path: 'health.host', env: ['BOTFLOW_HEALTH_HOST'], kind: 'string' },
  { path: 'events.keys', env: ['BOTFLOW_EVENTS_KEYS'], kind: 'list', secret: true },
  { path: 'events.path', env: ['BOTFLOW_EVENTS_PATH'], kind: 'string' },
  { path: 'events.maxBody', env: ['BOTFLOW_EVENTS_MAX_BODY'], kind: 'int' },
  { path: 'events.miniApp', env: ['BOTFLOW_EVENTS_MINI_APP'], kind: 'list' },
  { path: 'events.miniAppMaxAgeSeconds', env: ['BOTFLOW_EVENTS_MINI_APP_MAX_AGE_SECONDS'], kind: 'int' },
  { path: 'events.miniAppOrigins', env: ['BOTFLOW_EVENTS_MINI_APP_ORIGINS'], kind: 'list' },
  { path: 'events.host', env: ['BOTFLOW_EVENTS_HOST'], kind: 'string' },
  { path: 'events.port', env: ['BOTFLOW_EVENTS_PORT'], kind: 'int' },
  { path: 'tasks.concurrency', env: ['BOTFLOW_TASKS_CONCURRENCY'], kind: 'int' },
  { path: 'flows.dir', env: ['BOTFLOW_FLOWS_DIR'], flag: 'flows', kind: 'string', isPath: true },
  { path: 'flows.watch', env: ['BOTFLOW_FLOWS_WATCH'], flag: 'watch', kind: 'boolean' },
  { path: 'log.level', env: ['BOTFLOW_LOG_LEVEL'], flag: 'log-level', kind: 'string' },
  { path: 'limits.requestsPerSecond', env: ['BOTFLOW_LIMITS_REQUESTS_PER_SECOND'], kind: 'int' },
  { path: 'limits.perChatPerSecond', env: ['BOTFLOW_LIMITS_PER_CHAT_PER_SECOND'], kind: 'int' },
  { path: 'limits.requestTimeoutMs', env: ['BOTFLOW_LIMITS_REQUEST_TIMEOUT_MS'], kind: 'int' },
  { path: 'shutdown.timeoutMs', env: ['BOTFLOW_SHUTDOWN_TIMEOUT_MS'], kind: 'int' },
  { path: 'shutdown.sendDeadlineMs', env: ['BOTFLOW_SHUTDOWN_SEND_DEADLINE_MS'], kind: 'int' },
  { path: 'shutdown.drainMs', env: ['BOTFLOW_SHUTDOWN_DRAIN_MS'], kind: 'int' },
  { path: 'sandbox.host', env: ['BOTFLOW_SANDBOX_HOST', 'BOTFLOW_HOST'], flag: 'host', kind: 'string' },
  { path: 'sandbox.port', env: ['BOTFLOW_SANDBOX_PORT', 'BOTFLOW_PORT'], flag: 'port', kind: 'int' },
  { path: 'conversationKey', env: ['BOTFLOW_CONVERSATION_KEY'], kind: 'string' },
  { path: 'buttonSecret', env: ['BOTFLOW_BUTTON_SECRET'], kind: 'string', secret: true },
];

/** Environment variables botflow reads that are not configuration keys. */
export const OTHER_ENV = ['BOTFLOW_CONFIG', 'BOTFLOW_EVENTS_KEY'];

/** Dotted paths of secret settings: never echoed, redacted in logs. */
export const SECRET_PATHS = new Set(KEYS.filter((k) => k.secret).map((k) => k.path));
