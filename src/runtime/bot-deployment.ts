/**
 * `createDeployment()`: several bots in a service of your own, as `botflow run` serves a `bots:` section
 * (docs/bots.md). Each bot its own token, flows, database and settings; webhook bots share one server
 * routed by alias. Signals stay yours: call `deployment.stop()` when your service stops.
 */
import type { Logger } from 'pino';
import type { Registry } from '../flows/registry.ts';
import type { BotsCatalog } from '../store/ports/bots-catalog.ts';
import type { BotConfig } from './bot.ts';
import { loadConfig, secretsOf } from './config.ts';
import { defaultParts } from './default-parts.ts';
import { type RunningDeployment, startDeployment } from './deployment.ts';
import { createLogger } from './logger.ts';

export type { BotRecord, BotsCatalog } from '../store/ports/bots-catalog.ts';
export type { DeploymentBot, DeploymentBotStatus, RunningDeployment } from './deployment.ts';

/** What `createDeployment` is given. */
export interface CreateDeploymentOptions {
  /** Settings as in the configuration file, `bots` among them; the top-level ones are every bot's defaults. */
  config: BotConfig & { bots: NonNullable<BotConfig['bots']> };
  /** Where `BOTFLOW_*` variables and the bots' `token: { env }` are read from. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The folder relative paths are resolved against. Default: `process.cwd()`. */
  cwd?: string;
  /** The validators, guards and effects the flows name. Default: each bot's `<flows dir>/registry.ts`, if any. */
  registry?: Registry;
  /** A pino logger of yours; every bot logs through a child labelled `bot: <name>`. */
  logger?: Logger;
  /** Which bots to serve, shared with `botflow bots`; default one in memory, seeded from `config.bots`. */
  catalog?: BotsCatalog;
  /** A webhook bot with nothing to do this long (ms, default 60 000) is stopped and kept cold (docs/bots.md); `Infinity`: never. */
  idleMs?: number;
}

/**
 * Starts every bot of `config.bots`. A bot that cannot start (flows with errors, a refused token, its
 * platform down) is listed by `bots()` as `failed` with its reason; the others serve. Throws `ConfigError`
 * for settings that cannot work, and `StartupError` when the shared webhook server cannot listen.
 *
 * @example
 *   const deployment = await createDeployment({
 *     config: {
 *       bots: [
 *         { name: 'shop', token: { env: 'SHOP_TOKEN' } },
 *         { name: 'news', token: { file: 'secrets/news.token' }, flows: 'news-flows' },
 *       ],
 *     },
 *   });
 *   console.log(deployment.bots()); // [{ name: 'shop', status: 'running', … }, …] (webhook bots: 'idle' until needed)
 *   await deployment.pause('news'); // its timers wait in its database
 *   await deployment.stop();
 */
export async function createDeployment(options: CreateDeploymentOptions): Promise<RunningDeployment> {
  const env = options.env ?? process.env;
  const config = loadConfig({
    env,
    cwd: options.cwd ?? process.cwd(),
    values: options.config as Record<string, unknown>,
  });
  const logger = options.logger ?? createLogger({ level: config.log.level, secrets: secretsOf(config) });
  for (const warning of config.warnings) logger.warn(warning);
  return startDeployment(config, {
    logger,
    parts: defaultParts(options.registry ? { registry: options.registry } : {}),
    env,
    ...(options.catalog ? { catalog: options.catalog } : {}),
    ...(options.idleMs !== undefined ? { idleMs: options.idleMs } : {}),
  });
}
