/**
 * `createBot()`: botflow inside a service of your own, with exactly the parts `botflow run` starts (the
 * API client and its self-check, the database, the flows, the scheduler, the engine, webhook or long
 * polling; with no token, the local sandbox and its playground). Signals and process-wide error handlers
 * stay yours: call `bot.close()` when your service stops.
 */

import type { FastifyPluginCallback } from 'fastify';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { CampaignsApi } from '../engine/campaigns/api.ts';
import type { EngineEventSender } from '../engine/events.ts';
import type { Registry } from '../flows/registry.ts';
import { loadConfig, secretsOf } from './config.ts';
import type { ConfigSchema } from './config-schema.ts';
import { createLogger } from './logger.ts';
import type { BotIdentity } from './self-check.ts';
import type { StepOutcome } from './shutdown.ts';

/** Settings with the keys of `botflow.config.yaml` (every key: docs/running.md); all optional. */
export type BotConfig = z.input<typeof ConfigSchema>;

/** What `createBot` is given. */
export interface CreateBotOptions {
  /**
   * Settings, as in the configuration file. Without `token` the bot runs against the local sandbox
   * (with the playground): the way to try an embedding before it talks to the platform.
   */
  config?: BotConfig;
  /**
   * Where `BOTFLOW_*` variables are read from; they override `config` key by key, as they override the
   * file for `botflow run`. Default: `process.env`; pass `{}` to read none.
   */
  env?: NodeJS.ProcessEnv;
  /** The folder relative paths are resolved against (and `botflow.config.yaml` is looked for in). Default: `process.cwd()`. */
  cwd?: string;
  /** The validators, guards and effects the flows name. Default: `<flows.dir>/registry.ts` (or `.js`), if any. */
  registry?: Registry;
  /**
   * A pino logger of yours. Default: botflow's own (JSON lines on stdout at `log.level`), which scrubs the
   * token and the secrets from every line; with your own, keep secrets out of it yourself.
   */
  logger?: Logger;
  /**
   * Webhook mode: open no port of botflow's own; register `bot.webhook` on your fastify app instead.
   * Default false: botflow listens on `webhook.host`:`webhook.port`.
   */
  mountWebhook?: boolean;
}

/** A started bot. */
export interface Bot {
  /** Who the bot is, as the platform's self-check answered. */
  identity: BotIdentity;
  /** Where its parts can be reached: `api`, and `webChat`/`sandbox` with no token, `webhook` when it listens. */
  addresses: { api: string; sandbox?: string; webChat?: string; webhook?: string; events?: string };
  /** How many flows were loaded. */
  flowCount: number;
  /**
   * With `mountWebhook`: the receiver, a fastify plugin that serves `POST` at the prefix you register it
   * under, which must be the path of `webhook.url`:
   *
   *   app.register(bot.webhook, { prefix: '/bot/updates' });
   */
  webhook?: FastifyPluginCallback;
  /**
   * External events for the flows (`on_event:` steps, `triggers: - event:`), durable in the inbox and
   * handled in order with the person's own messages. `send` checks the event first (its name must be one
   * a flow or the registry knows, its payload must match their schema) and rejects with `EventInvalidError`
   * (BOTFLOW_EVENT_INVALID, every problem listed) storing nothing; `check` is that rule alone.
   *
   *   await bot.events.send({ name: 'order_shipped', to: { userId: 42 }, payload: { id: 7 }, key: 'ship-7' });
   */
  events: EngineEventSender;
  /**
   * With `mountWebhook` and `events` configured: the events endpoint (`POST /events`,
   * `POST /events/mini-app`), to register beside the receiver: `app.register(bot.eventsEndpoint)`.
   */
  eventsEndpoint?: FastifyPluginCallback;
  /**
   * Campaigns: start a flow for a segment of the people the bot knows, at a rate, with quiet hours and a
   * cap (docs/campaigns.md). `await bot.campaigns.plan({ flow: 'offer' })` counts who it would reach.
   */
  campaigns: CampaignsApi;
  /** Resolves when a part fails for good (polling refused, the token revoked): stop your service or the bot. */
  failed: Promise<Error>;
  /**
   * Stops in order: no new updates, the current steps finish, sends in flight get `shutdown.sendDeadlineMs`,
   * the database closes. Idempotent. `clean` is false when a step ran out of time; nothing accepted is lost.
   */
  close(): Promise<{ clean: boolean; steps: StepOutcome[] }>;
}

/**
 * Starts a bot. Throws `ConfigError` for settings that cannot work (every problem at once) and
 * `StartupError` when a part cannot start (self-check, flows with errors, a port in use), having closed
 * what it opened.
 *
 * @example
 *   const bot = await createBot({ config: { flows: { dir: 'flows' } } });
 *   // … later
 *   await bot.close();
 */
export async function createBot(options: CreateBotOptions = {}): Promise<Bot> {
  const config = loadConfig({
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    ...(options.config ? { values: options.config as Record<string, unknown> } : {}),
  });
  const logger = options.logger ?? createLogger({ level: config.log.level, secrets: secretsOf(config) });
  for (const warning of config.warnings) logger.warn(warning);
  // The app and its parts (the sandbox, the databases' drivers, fastify) are imported when a bot starts:
  // a project's registry imports this entry for defineRegistry, and botflow lsp loads that registry.
  const [{ startApp }, { defaultParts }] = await Promise.all([
    import('./app.ts'),
    import('./default-parts.ts'),
  ]);
  const app = await startApp(config, {
    logger,
    parts: defaultParts(options.registry ? { registry: options.registry } : {}),
    ...(options.mountWebhook ? { mountWebhook: true } : {}),
  });
  return {
    identity: app.bot,
    addresses: app.addresses,
    flowCount: app.flowCount,
    campaigns: app.engine!.campaigns, // startApp always returns its engine
    ...(app.webhook ? { webhook: app.webhook } : {}),
    ...(app.eventsEndpoint ? { eventsEndpoint: app.eventsEndpoint } : {}),
    events: app.events,
    failed: app.failed,
    close: () => app.close('close'),
  };
}
