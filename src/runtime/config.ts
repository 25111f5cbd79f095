/**
 * botflow's configuration: one schema (config-schema.ts) fed by the configuration file, the environment and
 * the command line, with precedence flags > environment > file > defaults. Every problem is reported with
 * the key, where it was set (file:line:col, the environment variable or the flag) and how to fix it, all at
 * once, before anything starts. Secrets come out wrapped in `Secret` so they cannot be logged by accident.
 */
import { parseArgs } from 'node:util';
import { BotflowError } from '../errors/index.ts';
import { closest } from '../flows/problems.ts';
import { type BotSpec, byName, embeddedBots, finishBots, normalizeBots } from './config-bots.ts';
import { type ConfigProblem, describeIssue } from './config-messages.ts';
import { type ConfigInput, ConfigSchema, KEYS, OTHER_ENV, PLATFORM_BASE_URL } from './config-schema.ts';
import {
  type ConfigFile,
  convertText,
  findConfigFile,
  getPath,
  readConfigFile,
  resolveSettingPath,
  SourceError,
  setPath,
  specFor,
  unreadableCertificate,
  type ValueSource,
} from './config-sources.ts';
import { Secret } from './secret.ts';

export type { ConfigProblem } from './config-messages.ts';
export type { ValueSource } from './config-sources.ts';
export { Secret } from './secret.ts';

/** The configuration cannot be used; `message` lists every problem, one per line, ready to print. */
export class ConfigError extends BotflowError {
  override name = 'ConfigError';
  constructor(readonly problems: ConfigProblem[]) {
    super(
      'BOTFLOW_CONFIG_INVALID',
      problems.length === 1
        ? `invalid configuration: ${render(problems[0]!)}`
        : `invalid configuration (${problems.length} problems):\n${problems.map((p) => `  - ${render(p)}`).join('\n')}`,
    );
  }
}

function render(problem: ConfigProblem): string {
  return problem.where ? `${problem.where}: ${problem.message}` : problem.message;
}

/** The settings botflow runs with. Paths are absolute; secrets are `Secret`s. */
export interface Config {
  /** No token: run the embedded default (sandbox + web chat) instead of talking to a platform. */
  embedded: boolean;
  token?: Secret;
  /** The API address; undefined in embedded mode (the sandbox decides it). */
  baseUrl?: string;
  caFiles: string[];
  mode: 'webhook' | 'polling';
  webhook: {
    host: string;
    port: number;
    url?: string;
    /** The route the receiver serves: the path of `url` (`/` without one). */
    path: string;
    secret?: Secret;
    updateTypes?: string[];
  };
  polling: ConfigInput['polling'];
  database: {
    path: string;
    synchronous: 'FULL' | 'NORMAL';
    writerThread: boolean;
    /** PostgreSQL: several processes share it (the SQLite settings are then unused). */
    url?: Secret;
    /** PostgreSQL: the schema of one bot of a deployment (`bot_<name>`, set by `botConfigFor`). */
    schema?: string;
  };
  health: ConfigInput['health'];
  /**
   * External events over HTTP (`POST <path>` with a key, `<path>/mini-app` with initData); `enabled` when
   * keys or mini-app events are configured. Served on the webhook receiver, else on `host:port`.
   */
  events: Omit<ConfigInput['events'], 'keys' | 'miniApp' | 'miniAppOrigins'> & {
    enabled: boolean;
    keys: Secret[];
    miniApp: string[];
    miniAppOrigins: string[];
  };
  flows: { dir: string; watch: boolean };
  tasks: ConfigInput['tasks'];
  log: ConfigInput['log'];
  limits: ConfigInput['limits'];
  shutdown: ConfigInput['shutdown'];
  sandbox: ConfigInput['sandbox'];
  conversationKey: ConfigInput['conversationKey'];
  /** What the funnel keeps of texts nothing took: samples, or only counts (`funnel.samples`). */
  funnel: ConfigInput['funnel'];
  /** Signs callback button payloads; the engine keeps a generated one in the database when absent. */
  buttonSecret?: Secret;
  /** Several bots in one deployment (`bots:`, docs/bots.md); one bot's `Config`: `botConfigFor`. */
  bots?: BotSpec[];
  /** The configuration file read, if any. */
  configFile?: string;
  /** Where each key that was not a default came from. */
  sources: Record<string, ValueSource>;
  /** Things that work but are probably mistakes (an unknown BOTFLOW_* variable). */
  warnings: string[];
}

/** What `loadConfig` reads. */
export interface LoadConfigOptions {
  /** Command-line arguments after `run`. */
  argv?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * Settings given in code (`createBot({ config })`), with the keys of the configuration file. They take
   * the file's place key by key; the environment and flags still override them.
   */
  values?: Record<string, unknown>;
}

/** Thrown for `--help`: the caller prints the usage text. (Plain: control flow, never reported as an error.) */
export class HelpRequested extends Error {
  override name = 'HelpRequested';
}

const FLAG_OPTIONS = Object.fromEntries([
  ['config', { type: 'string' as const }],
  ['help', { type: 'boolean' as const, short: 'h' }],
  ...KEYS.filter((k) => k.flag).map(
    (k) => [k.flag!, { type: k.kind === 'boolean' ? 'boolean' : 'string' }] as const,
  ),
]);

/** Reads, merges and validates the configuration. Throws `ConfigError` listing every problem. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const flags = parseFlags(options.argv ?? []);
  if (flags.help) throw new HelpRequested('help');

  let file: ConfigFile | undefined;
  try {
    const named = (flags.config as string | undefined) ?? (env.BOTFLOW_CONFIG || undefined);
    const path = findConfigFile(named, cwd);
    if (path) file = readConfigFile(path, cwd);
  } catch (error) {
    if (error instanceof SourceError) throw new ConfigError([{ key: '', where: '', message: error.message }]);
    throw error;
  }

  const raw: Record<string, unknown> = structuredClone(file?.values ?? {});
  const sources: Record<string, ValueSource> = {};
  const problems: ConfigProblem[] = unknownCodeKeys(options.values);
  if (options.values?.bots !== undefined) raw.bots = structuredClone(options.values.bots);
  let original = (path: (string | number)[]) => path;
  const fileSource = (path: (string | number)[]): ValueSource | undefined => {
    if (!file || getPath(file.values, path.join('.')) === undefined) return undefined;
    return { kind: 'file', file: file.path, ...file.locate(path) };
  };
  for (const spec of KEYS) {
    const fromFile = fileSource(spec.path.split('.'));
    if (fromFile) sources[spec.path] = fromFile;
    const inCode = options.values ? getPath(options.values, spec.path) : undefined;
    if (inCode !== undefined) {
      setPath(raw, spec.path, structuredClone(inCode));
      sources[spec.path] = { kind: 'code', name: `config.${spec.path}` };
    }
    const envName = spec.env.find((name) => env[name] !== undefined && env[name] !== '');
    if (envName) {
      setPath(raw, spec.path, convertText(spec, env[envName]!));
      sources[spec.path] = { kind: 'env', name: envName };
    }
    const flag = spec.flag ? flags[spec.flag] : undefined;
    if (flag !== undefined) {
      setPath(raw, spec.path, typeof flag === 'string' ? convertText(spec, flag) : flag);
      sources[spec.path] = { kind: 'flag', name: `--${spec.flag}` };
    }
  }

  if (options.values?.bots !== undefined) sources.bots = { kind: 'code', name: 'config.bots' };
  else if (file && raw.bots !== undefined) sources.bots = { kind: 'file', file: file.path };
  const where = (path: (string | number)[], key?: string): string => {
    const dotted = path.join('.');
    const spec = specFor(dotted);
    const source = (spec && sources[spec.path]) || fileSource(path);
    if (source?.kind === 'env' || source?.kind === 'flag' || source?.kind === 'code') return source.name;
    if (file && (source?.kind === 'file' || key !== undefined || path[0] === 'bots')) {
      const at = file.locate(original(path), key);
      return at ? `${file.shown}:${at.line}:${at.col}` : file.shown;
    }
    return '';
  };

  original = normalizeBots(raw, where, problems);
  const parsed = ConfigSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    problems.push(...parsed.error.issues.flatMap((i) => describeIssue(i, where, file).map(byName(original))));
    crossCheck(raw, sources, problems, where);
    throw new ConfigError(problems);
  }
  crossCheck(parsed.data, sources, problems, where);
  const config = finish(parsed.data, sources, cwd, problems, where);
  if (problems.length > 0) throw new ConfigError(problems);
  config.configFile = file?.path;
  config.warnings = unknownEnvironment(env);
  return config;
}

function parseFlags(argv: string[]): Record<string, string | boolean | undefined> {
  // `--no-watch` turns a boolean setting off (node's parseArgs has no negated options before Node 22).
  const negated: Record<string, boolean> = {};
  const rest = argv.filter((arg) => {
    const name = /^--no-([\w-]+)$/.exec(arg)?.[1];
    if (!name || FLAG_OPTIONS[name]?.type !== 'boolean') return true;
    negated[name] = false;
    return false;
  });
  try {
    const { values } = parseArgs({
      args: rest,
      options: FLAG_OPTIONS,
      strict: true,
      allowPositionals: false,
    });
    return { ...(values as Record<string, string | boolean | undefined>), ...negated };
  } catch (error) {
    const flags = Object.keys(FLAG_OPTIONS).map((f) => `--${f}`);
    const unknown = /Unknown option '(--?[\w-]+)/.exec((error as Error).message)?.[1];
    const guess = unknown ? closest(unknown, flags) : undefined;
    const message = unknown
      ? `unknown option ${unknown}${guess ? `: did you mean ${guess}?` : ''}`
      : (error as Error).message;
    throw new ConfigError([
      { key: '', where: 'command line', message: `${message} Options: ${flags.join(', ')}` },
    ]);
  }
}

function finish(
  input: ConfigInput,
  sources: Record<string, ValueSource>,
  cwd: string,
  problems: ConfigProblem[],
  where: (path: (string | number)[]) => string,
): Config {
  // No token anywhere: the embedded sandbox, for one bot or for every bot of bots: (embeddedBots).
  const embedded = input.token === undefined && (input.bots === undefined || embeddedBots(input));
  const problem = (key: string, message: string) =>
    problems.push({ key, where: where(key.split('.')) || key, message });
  const caFiles = input.caFiles.map((path) => resolveSettingPath(path, sources.caFiles, cwd));
  caFiles.forEach((path, index) => {
    const reason = unreadableCertificate(path);
    if (reason) problem(`caFiles.${index}`, `${path} ${reason}`);
  });
  const databasePath = input.database.path ?? (embedded ? '.botflow/sandbox.db' : 'botflow.db');
  const bots = finishBots(input, (path) => resolveSettingPath(path, sources.bots, cwd), problem);
  return {
    ...(bots ? { bots } : {}),
    embedded,
    token: input.token === undefined ? undefined : new Secret(input.token),
    baseUrl: embedded ? undefined : (input.baseUrl ?? PLATFORM_BASE_URL).replace(/\/+$/, ''),
    caFiles,
    mode: embedded ? 'polling' : input.mode,
    webhook: {
      ...input.webhook,
      path: input.webhook.url ? new URL(input.webhook.url).pathname : '/',
      secret: input.webhook.secret === undefined ? undefined : new Secret(input.webhook.secret),
    },
    polling: input.polling,
    database: {
      path:
        databasePath === ':memory:'
          ? databasePath
          : resolveSettingPath(databasePath, sources['database.path'], cwd),
      synchronous: input.database.synchronous,
      writerThread: input.database.writerThread,
      ...(input.database.url ? { url: new Secret(input.database.url) } : {}),
    },
    health: input.health,
    events: {
      ...input.events,
      enabled: (input.events.keys?.length ?? 0) + (input.events.miniApp?.length ?? 0) > 0,
      keys: (input.events.keys ?? []).map((key) => new Secret(key)),
      miniApp: input.events.miniApp ?? [],
      miniAppOrigins: input.events.miniAppOrigins ?? [],
    },
    flows: {
      dir: resolveSettingPath(input.flows.dir, sources['flows.dir'], cwd),
      watch: input.flows.watch ?? embedded,
    },
    tasks: input.tasks,
    log: input.log,
    limits: input.limits,
    shutdown: input.shutdown,
    sandbox: input.sandbox,
    conversationKey: input.conversationKey,
    funnel: input.funnel,
    buttonSecret: input.buttonSecret === undefined ? undefined : new Secret(input.buttonSecret),
    sources,
    warnings: [],
  };
}

/** Settings that only make sense together; checked on the raw values too, so that every problem shows at once. */
function crossCheck(
  values: { token?: unknown; baseUrl?: unknown; mode?: unknown; webhook?: unknown; bots?: unknown },
  sources: Record<string, ValueSource>,
  problems: ConfigProblem[],
  where: (path: (string | number)[]) => string,
): void {
  if (values.bots !== undefined) return; // the bots' own checks (finishBots)
  const embedded = values.token === undefined;
  const webhook = values.webhook as { url?: unknown; secret?: unknown } | undefined;
  const problem = (key: string, message: string) =>
    problems.push({ key, where: where(key.split('.')) || key, message });
  if (embedded && values.baseUrl !== undefined) {
    problem(
      'baseUrl',
      'a base URL is set but no token: set BOTFLOW_TOKEN (or `token` in the file) to use a platform',
    );
  }
  if (embedded && sources.mode && values.mode === 'webhook') {
    problem(
      'mode',
      'webhook mode needs a token: set BOTFLOW_TOKEN, or remove the mode to run the local sandbox',
    );
  }
  if (!embedded && values.mode === 'webhook') {
    if (!webhook?.url) {
      problem(
        'webhook.url',
        'webhook mode needs the public HTTPS address the platform posts to: set BOTFLOW_WEBHOOK_URL (e.g. https://bot.example.com/botflow/updates)',
      );
    }
    if (!webhook?.secret) {
      problem(
        'webhook.secret',
        'webhook mode needs a secret so that only the platform can post updates: set BOTFLOW_WEBHOOK_SECRET to 5..256 characters of A-Z a-z 0-9 _ - (for example the output of `openssl rand -hex 32`)',
      );
    }
  }
}

/** Keys given in code that are no setting: reported like unknown keys of the file, with a guess. */
function unknownCodeKeys(values: Record<string, unknown> | undefined): ConfigProblem[] {
  if (!values) return [];
  const leaves: string[] = [];
  const walk = (value: unknown, path: string) => {
    if (path === 'bots' || (path && specFor(path))) return;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) walk(inner, path ? `${path}.${key}` : key);
    } else leaves.push(path);
  };
  walk(values, '');
  return leaves.map((path) => {
    const guess = closest(
      path,
      KEYS.map((k) => k.path),
    );
    return {
      key: path,
      where: `config.${path}`,
      message: `is not a botflow setting${guess ? `; did you mean ${guess}?` : ''} (every setting: docs/running.md)`,
    };
  });
}

function unknownEnvironment(env: NodeJS.ProcessEnv): string[] {
  const known = new Set([...KEYS.flatMap((k) => k.env), ...OTHER_ENV]);
  return Object.keys(env)
    .filter((name) => name.startsWith('BOTFLOW_') && !known.has(name))
    .map((name) => {
      const guess = closest(name, [...known]);
      return `${name} is not a botflow setting and is ignored${guess ? `; did you mean ${guess}?` : ''}`;
    });
}

/**
 * Every secret of `config` as text, for scrubbing logs, printed lines and recordings: the token, the
 * webhook and button secrets, the events keys, the database URL and its password alone.
 */
export function secretsOf(config: Config): string[] {
  const url = config.database.url?.reveal();
  let password: string | undefined;
  try {
    password = url ? decodeURIComponent(new URL(url).password) || undefined : undefined;
  } catch {
    password = undefined;
  }
  return [config.token, config.webhook.secret, config.buttonSecret, ...config.events.keys]
    .map((secret) => secret?.reveal())
    .concat(url, password)
    .filter((value): value is string => value !== undefined && value !== '');
}
