/**
 * Many bots in one deployment (docs/bots.md): the `bots:` section of the configuration (a list, or a map
 * by name), each bot's token read from the environment or a file (never written in the file), and
 * `botConfigFor`, which derives one bot's full `Config` from the deployment's: its token, its flows, its
 * own database (a SQLite file under `bots/`, or a PostgreSQL schema `bot_<name>`) and its settings.
 */
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { BotflowError } from '../errors/index.ts';
import { Secret } from './secret.ts';

/** A configuration problem (config-messages.ts's `ConfigProblem`; written here so the schema imports no circle). */
interface ConfigProblem {
  key: string;
  where: string;
  message: string;
}

/** A bot's name: what `--bot`, the logs (`bot: name`) and its database file or schema are named after. */
export const BOT_NAME = /^[a-z_][a-z0-9_]{0,31}$/;

/** Where a secret is read from: an environment variable or a file (its first line, trimmed). */
const secretSource = z
  .strictObject({
    env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
      .optional(),
    file: z.string().min(1).optional(),
  })
  .refine((s) => (s.env === undefined) !== (s.file === undefined), 'exactly one of env: VAR or file: path');

const botSettings = {
  /** Folder of this bot's `*.flow.yaml` files; default the top-level `flows.dir` (shared). */
  flows: z.string().min(1).optional(),
  mode: z.enum(['webhook', 'polling']).optional(),
  webhook: z
    .strictObject({
      /** The opaque last segment of the bot's webhook route; default derived from the name and the deployment's secret. */
      alias: z
        .string()
        .regex(/^[A-Za-z0-9_-]{8,64}$/, '8 to 64 characters of A-Z a-z 0-9 _ -')
        .optional(),
      /** The bot's subscription secret; default derived from the name and the deployment's `webhook.secret`. */
      secret: secretSource.optional(),
    })
    .optional(),
  /** The API address for this bot (mainly for tests: a sandbox per bot). */
  baseUrl: z.url({ protocol: /^https?$/, error: 'a URL starting with https:// (or http://)' }).optional(),
  /** Configured but not started (`botflow bots resume` starts it). */
  paused: z.boolean().optional(),
  limits: z
    .strictObject({
      requestsPerSecond: z.int().min(1).max(30).optional(),
      perChatPerSecond: z.int().min(1).max(2).optional(),
      requestTimeoutMs: z.int().min(100).max(300_000).optional(),
    })
    .optional(),
  conversationKey: z.enum(['user-in-chat', 'chat', 'user']).optional(),
  funnel: z.strictObject({ samples: z.boolean().optional() }).optional(),
  tasks: z.strictObject({ concurrency: z.int().min(1).max(10_000).optional() }).optional(),
};

/** One entry of `bots:`. */
export const BotEntrySchema = z.strictObject({
  name: z
    .string()
    .regex(
      BOT_NAME,
      "a name of 1 to 32 characters of a-z 0-9 _, not starting with a digit (it names the bot's file and schema)",
    ),
  /** Absent on every bot (and no `baseUrl`): `botflow run` hosts them all in its embedded sandbox. */
  token: secretSource.optional(),
  ...botSettings,
});

/** The `bots:` section, as validated (a map by name is turned into this list first). */
export const BotsSchema = z.array(BotEntrySchema).min(1, 'at least one bot');

/** One bot of the deployment as configured; its token is read when it starts (`botConfigFor`). */
export type BotSpec = Omit<z.infer<typeof BotEntrySchema>, 'token'> & {
  token: NonNullable<z.infer<typeof BotEntrySchema>['token']>;
};

/** The variable the embedded sandbox's token of the tokenless bot `name` is handed over in (`botflow run`). */
export function sandboxTokenVariable(name: string): string {
  return `BOTFLOW_SANDBOX_TOKEN_${name.toUpperCase()}`;
}

/**
 * No bot has a token or a platform address, and no `baseUrl` or `token` is set: the embedded default with
 * several bots (`botflow run` hosts every bot in one sandbox, each its own token, docs/bots.md).
 */
export function embeddedBots(input: {
  token?: string;
  baseUrl?: string;
  bots?: { token?: unknown; baseUrl?: string }[];
}): boolean {
  if (!input.bots?.length || input.token !== undefined || input.baseUrl !== undefined) return false;
  return input.bots.every((bot) => bot.token === undefined && bot.baseUrl === undefined);
}

/**
 * Turns `bots:` written as a map by name into the list, refuses tokens written inline (each with where it
 * is), and gives a way back from a list index to the key in the file for messages.
 */
export function normalizeBots(
  raw: Record<string, unknown>,
  where: (path: (string | number)[]) => string,
  problems: ConfigProblem[],
): (path: (string | number)[]) => (string | number)[] {
  const bots = raw.bots;
  const keys: (string | number)[] = [];
  if (bots && typeof bots === 'object' && !Array.isArray(bots)) {
    raw.bots = Object.entries(bots).map(([name, entry], index) => {
      keys[index] = name;
      return entry && typeof entry === 'object' ? { name, ...entry } : entry;
    });
  }
  const original = (path: (string | number)[]) =>
    path[0] === 'bots' && typeof path[1] === 'number' && keys[path[1]] !== undefined
      ? ['bots', keys[path[1]]!, ...path.slice(2)]
      : path;
  if (!Array.isArray(raw.bots)) return original;
  raw.bots.forEach((entry: unknown, index) => {
    if (!entry || typeof entry !== 'object') return;
    const bot = entry as Record<string, unknown>;
    for (const key of ['token', 'webhook.secret']) {
      const [outer, inner] = key.split('.') as [string, string | undefined];
      const holder = inner ? (bot[outer] as Record<string, unknown> | undefined) : bot;
      const value = holder?.[inner ?? outer];
      if (typeof value !== 'string') continue;
      const path = original(['bots', index, ...key.split('.')]);
      problems.push({
        key: path.join('.'),
        where: where(path) || path.join('.'),
        message: `${path.join('.')} must not be written in the configuration file: read it from the environment ({ env: VAR }) or from a file ({ file: path })`,
      });
      holder![inner ?? outer] = { env: 'INLINE_VALUE_REFUSED' };
    }
  });
  return original;
}

/** A problem of `bots:` written as a map, with the bot's name where the list's index was (`bots.news.x`). */
export function byName(
  original: (path: (string | number)[]) => (string | number)[],
): (problem: ConfigProblem) => ConfigProblem {
  return (problem) => {
    const index = /^bots\.(\d+)(\.|$)/.exec(problem.key)?.[1];
    if (index === undefined) return problem;
    const name = original(['bots', Number(index)])[1];
    if (typeof name !== 'string') return problem;
    const rename = (text: string) => text.replaceAll(`bots.${index}`, `bots.${name}`);
    return { ...problem, key: rename(problem.key), message: rename(problem.message) };
  };
}

/** The settings of the deployment a bot's `Config` is derived from (the `Config` fields it needs). */
interface DeploymentSettings {
  embedded: boolean;
  baseUrl?: string;
  mode: 'webhook' | 'polling';
  webhook: {
    url?: string;
    path: string;
    secret?: Secret;
    host: string;
    port: number;
    updateTypes?: string[];
  };
  database: {
    path: string;
    url?: Secret;
    schema?: string;
    synchronous: 'FULL' | 'NORMAL';
    writerThread: boolean;
  };
  flows: { dir: string; watch: boolean };
  limits: { requestsPerSecond: number; perChatPerSecond: number; requestTimeoutMs: number };
  tasks: { concurrency: number };
  funnel: { samples: boolean };
  conversationKey: 'user-in-chat' | 'chat' | 'user';
  bots?: BotSpec[];
}

/** A bot's SQLite file: `<folder of database.path>/bots/<name>.db`. */
export function sqliteBotPath(dataDir: string, name: string): string {
  return join(dataDir, 'bots', `${name}.db`);
}

/** A bot's PostgreSQL schema: `bot_<name>` with `-` turned into `_`. */
export function botSchema(name: string): string {
  return `bot_${name}`;
}

function derived(key: Secret | undefined, what: string, name: string): string {
  return createHmac('sha256', key?.reveal() ?? 'botflow')
    .update(`${what}:${name}`)
    .digest('base64url')
    .slice(0, 32);
}

/**
 * The bot's webhook alias: its own `webhook.alias`, else an opaque id derived (HMAC-SHA256) from its name
 * and the deployment's `webhook.secret`: stable across restarts, unguessable without the secret.
 */
export function botAlias(
  config: { webhook: { secret?: Secret } },
  spec: Pick<BotSpec, 'name' | 'webhook'>,
): string {
  return spec.webhook?.alias ?? derived(config.webhook.secret, 'alias', spec.name);
}

/**
 * Reads a secret from where the configuration says (a file's path is absolute by then); throws a
 * `BotflowError` naming the place, never the value.
 */
export function readSecretSource(
  source: { env?: string; file?: string },
  what: string,
  env: NodeJS.ProcessEnv,
): Secret {
  if (source.env !== undefined) {
    const value = env[source.env]?.trim();
    if (!value)
      throw new BotflowError('BOTFLOW_CONFIG_INVALID', `${what}: the variable ${source.env} is not set`);
    return new Secret(value);
  }
  const path = source.file!;
  if (!existsSync(path))
    throw new BotflowError('BOTFLOW_CONFIG_INVALID', `${what}: the file ${path} does not exist`);
  const value = readFileSync(path, 'utf8').split('\n')[0]?.trim();
  if (!value) throw new BotflowError('BOTFLOW_CONFIG_INVALID', `${what}: the file ${path} is empty`);
  return new Secret(value);
}

/** The names of the configured bots (empty without `bots:`). */
export function botNames(config: { bots?: BotSpec[] }): string[] {
  return (config.bots ?? []).map((bot) => bot.name);
}

/** What `botConfigFor` reads besides the configuration. */
export interface BotConfigOptions {
  /** Where `token: { env }` is read from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Read the token (default true); false for commands that only open the bot's database or flows. */
  token?: boolean;
}

/**
 * One bot's full configuration, derived from the deployment's: its token (read now), its flows folder
 * (default the shared `flows.dir`), its own database, its webhook route `<path of webhook.url>/webhook/<alias>`
 * with its own secret, and its settings over the top-level ones. Throws `BotflowError` for an unknown name
 * (listing the names) or a token that cannot be read.
 */
export function botConfigFor<C extends DeploymentSettings>(
  config: C,
  name: string,
  options: BotConfigOptions = {},
): C {
  const spec = config.bots?.find((bot) => bot.name === name);
  if (!spec) {
    throw new BotflowError(
      'BOTFLOW_CONFIG_INVALID',
      `no bot named "${name}" in the configuration; its bots: ${botNames(config).join(', ') || '(none)'}`,
    );
  }
  const env = options.env ?? process.env;
  const token =
    options.token === false ? undefined : readSecretSource(spec.token, `bot ${name}'s token`, env);
  const alias = botAlias(config, spec);
  const webhookUrl = config.webhook.url
    ? `${config.webhook.url.replace(/\/+$/, '')}/webhook/${alias}`
    : undefined;
  const secret = spec.webhook?.secret
    ? readSecretSource(spec.webhook.secret, `bot ${name}'s webhook.secret`, env)
    : config.webhook.secret && new Secret(derived(config.webhook.secret, 'secret', name));
  const { url, path } = config.database;
  const database = url
    ? { ...config.database, schema: botSchema(name) }
    : { ...config.database, path: path === ':memory:' ? path : sqliteBotPath(dirname(path), name) };
  return {
    ...config,
    embedded: false,
    ...(token ? { token } : {}),
    baseUrl: (spec.baseUrl ?? config.baseUrl)?.replace(/\/+$/, ''),
    mode: spec.mode ?? config.mode,
    webhook: {
      ...config.webhook,
      ...(webhookUrl ? { url: webhookUrl, path: new URL(webhookUrl).pathname } : {}),
      ...(secret ? { secret } : {}),
    },
    database,
    flows: { ...config.flows, dir: spec.flows ?? config.flows.dir },
    limits: { ...config.limits, ...spec.limits },
    tasks: { ...config.tasks, ...spec.tasks },
    funnel: { ...config.funnel, ...spec.funnel },
    conversationKey: spec.conversationKey ?? config.conversationKey,
    bots: undefined,
  };
}

/**
 * The configuration a command works on: the one bot of `--bot`, the only bot, or the configuration itself
 * without `bots:`. Several bots and no `--bot`: a `BotflowError` listing their names.
 */
export function selectBot<C extends DeploymentSettings>(
  config: C,
  bot: string | undefined,
  command: string,
): C {
  const names = botNames(config);
  if (bot === undefined && names.length === 0) return config;
  if (bot !== undefined && names.length === 0) {
    throw new BotflowError(
      'BOTFLOW_CONFIG_INVALID',
      `--bot ${bot}: the configuration has no bots: section (it serves one bot: leave --bot out)`,
    );
  }
  if (bot === undefined && names.length > 1) {
    throw new BotflowError(
      'BOTFLOW_CONFIG_INVALID',
      `the configuration serves ${names.length} bots: say which with ${command} --bot <name> (${names.join(', ')})`,
    );
  }
  return botConfigFor(config, bot ?? names[0]!, { token: false });
}

/**
 * The bots as the configuration keeps them: paths (flows, token and secret files) resolved against the
 * file's folder; and what only makes sense across the section: names and aliases used twice, a top-level
 * token beside `bots:`, webhook mode without an address or a secret.
 */
export function finishBots(
  input: {
    bots?: z.infer<typeof BotsSchema>;
    token?: string;
    baseUrl?: string;
    mode: string;
    webhook: { url?: string; secret?: string };
  },
  resolvePath: (value: string) => string,
  problem: (key: string, message: string) => void,
): BotSpec[] | undefined {
  if (!input.bots) return undefined;
  if (input.token !== undefined) {
    problem(
      'token',
      'a top-level token beside bots: each bot reads its own (bots[].token): remove token / BOTFLOW_TOKEN',
    );
  }
  const seen = new Map<string, number>();
  const aliases = new Map<string, string>();
  const secret = input.webhook.secret === undefined ? undefined : new Secret(input.webhook.secret);
  const embedded = embeddedBots(input);
  return input.bots.map((bot, index) => {
    if (bot.token === undefined && !embedded)
      problem(
        `bots.${index}.token`,
        `bot ${bot.name} has no token: give token: { env: VAR } or { file: path } (only when no bot has a token ` +
          'and no baseUrl is set does botflow run host them all in its embedded sandbox)',
      );
    if (seen.has(bot.name))
      problem(
        `bots.${index}.name`,
        `the name "${bot.name}" is used by bots ${seen.get(bot.name)} and ${index}: names are unique`,
      );
    seen.set(bot.name, index);
    const alias = botAlias({ webhook: { secret } }, bot);
    const other = aliases.get(alias);
    if (other !== undefined)
      problem(`bots.${index}.webhook.alias`, `the alias is also ${other}'s: aliases are unique`);
    aliases.set(alias, bot.name);
    if ((bot.mode ?? input.mode) === 'webhook') {
      if (!input.webhook.url)
        problem(
          `bots.${index}.mode`,
          `bot ${bot.name} receives webhooks: set webhook.url (BOTFLOW_WEBHOOK_URL), the address the bots' routes /webhook/<alias> hang under`,
        );
      if (!bot.webhook?.secret && !secret)
        problem(
          `bots.${index}.webhook`,
          `bot ${bot.name} receives webhooks: set webhook.secret (each bot's secret is derived from it) or bots[].webhook.secret`,
        );
    }
    const file = (source: { env?: string; file?: string }) =>
      source.file === undefined ? source : { file: resolvePath(source.file) };
    return {
      ...bot,
      token: bot.token ? file(bot.token) : { env: sandboxTokenVariable(bot.name) },
      ...(bot.flows ? { flows: resolvePath(bot.flows) } : {}),
      ...(bot.webhook
        ? { webhook: { ...bot.webhook, ...(bot.webhook.secret ? { secret: file(bot.webhook.secret) } : {}) } }
        : {}),
    };
  });
}
