/**
 * One bot of a deployment: its configuration derived from the deployment's and its catalog record, its app
 * started (`startApp`, the receiver mounted on the deployment's one server) and stopped. A bot that cannot
 * start (its flows fail to compile, its token is refused, its platform is down) is marked failed with its
 * reason and logged alone; it never holds up the others.
 */
import { createHash } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { BotApi } from '../client/client.ts';
import { type EnsureResult, ensureSubscription } from '../intake/subscriptions.ts';
import type { BotRecord } from '../store/ports/bots-catalog.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import { startApp } from './app.ts';
import type { RunningApp, StartAppOptions } from './app-parts.ts';
import type { Config } from './config.ts';
import { type BotSpec, botConfigFor } from './config-bots.ts';

/** Where a bot of a deployment stands. */
export type DeploymentBotStatus = 'idle' | 'starting' | 'running' | 'paused' | 'failed' | 'stopping';

/** A bot of a running deployment, as `RunningDeployment.bots()` lists it (never its token). */
export interface DeploymentBot {
  name: string;
  /** The last segment of its webhook route, `<path of webhook.url>/webhook/<alias>`. */
  alias: string;
  status: DeploymentBotStatus;
  /** Why it is paused or failed. */
  reason?: string;
  /** Its numeric id and username, from `/me` once it ran (or from `botflow bots add`). */
  botId?: number;
  username?: string;
}

/** A bot's place in the deployment: its state, its app while it runs, the receiver its route leads to. */
export interface BotSlot extends DeploymentBot {
  app?: RunningApp;
  /** The bot's receiver, not listening: the deployment's server hands it the requests of its alias. */
  receiver?: FastifyInstance;
  /** SHA-256 of its webhook secret, for the 401 the server answers while the bot does not run. */
  secretDigest?: Buffer;
  /** Start and stop, one after the other. */
  work: Promise<void>;
  /** Webhook mode: ends the bot's subscription (on remove; a pause keeps it, deliveries then get 503). */
  unsubscribe?(): Promise<void>;
  /** A webhook bot the deployment keeps cold while it has nothing to do (`idle`: nothing open). */
  coldable?: boolean;
  /** When a delivery last reached its receiver, or its app last started (ms, wall time). */
  lastActive?: number;
  /** A cold bot's webhook subscription: false while it is being made sure of (not ready yet). */
  subscribed?: boolean;
  /** How many times its app was started (tests: a cold bot opened nothing). */
  starts: number;
}

/** The bot's spec: the configuration's entry for its name (settings, token), with the catalog's record over it. */
export function specOf(config: Config, record: BotRecord): BotSpec {
  const configured = config.bots?.find((bot) => bot.name === record.name);
  const token =
    configured?.token ??
    (record.tokenFile !== undefined ? { file: record.tokenFile } : { env: record.tokenEnv ?? '' });
  return {
    ...(configured ?? { name: record.name }),
    token,
    webhook: { ...configured?.webhook, alias: record.alias },
  };
}

/** The bot's own `Config` as the deployment runs it: no listener of its own (health, events: the deployment's). */
export function deployedConfig(config: Config, record: BotRecord, env: NodeJS.ProcessEnv): Config {
  const bot = botConfigFor({ ...config, bots: [specOf(config, record)] }, record.name, { env });
  // A writer thread is a V8 isolate of its own (~27 MB a bot, docs/bots.md): off unless configured.
  const writerThread = config.sources['database.writerThread'] ? bot.database.writerThread : false;
  return {
    ...bot,
    database: { ...bot.database, writerThread },
    health: { ...bot.health, port: undefined },
    events: { ...bot.events, enabled: false },
  };
}

/** What starting a bot needs from the deployment. */
export interface SlotContext {
  config: Config;
  env: NodeJS.ProcessEnv;
  options: Omit<StartAppOptions, 'mountWebhook'>;
  /** Records the identity `/me` answered in the catalog. */
  identified(name: string, identity: { botId: number; username?: string }): void;
}

/** Starts the bot's app; on failure the slot is `failed` with the reason (logged under `bot: name`). */
export async function startSlot(slot: BotSlot, record: BotRecord, context: SlotContext): Promise<void> {
  const logger = context.options.logger.child({ bot: slot.name });
  slot.status = 'starting';
  slot.reason = undefined;
  let app: RunningApp | undefined;
  try {
    const config = deployedConfig(context.config, record, context.env);
    if (config.token) context.options.logger.addSecret?.(config.token.reveal());
    const secret = config.webhook.secret?.reveal();
    if (secret) context.options.logger.addSecret?.(secret);
    slot.secretDigest = secret === undefined ? undefined : createHash('sha256').update(secret).digest();
    slot.starts++;
    app = await startApp(config, { ...context.options, logger, mountWebhook: true });
    if (app.webhook) {
      const receiver = Fastify();
      receiver.register(app.webhook);
      await receiver.ready();
      slot.receiver = receiver;
    }
    slot.app = app;
    slot.unsubscribe = config.mode === 'webhook' ? unsubscriber(config) : undefined;
    slot.botId = app.bot.id;
    slot.username = app.bot.username;
    slot.status = 'running';
    slot.lastActive = wallNow();
    context.identified(slot.name, {
      botId: app.bot.id,
      ...(app.bot.username ? { username: app.bot.username } : {}),
    });
    logger.info(
      { botId: app.bot.id, flows: app.flowCount, mode: config.mode },
      `bot ${slot.name} is running`,
    );
    const running = app;
    void app.failed.then((error) => {
      if (slot.app !== running) return;
      logger.error({ err: error }, `bot ${slot.name} cannot go on: ${error.message}; it is stopped`);
      slot.work = slot.work.then(() => stopSlot(slot, 'failed', error.message));
    });
  } catch (error) {
    await app?.close('failure').catch(() => {});
    slot.status = 'failed';
    slot.reason = error instanceof Error ? error.message : String(error);
    logger.error(`bot ${slot.name} could not start and is left out: ${slot.reason}`);
  }
}

/** A call to the platform with the bot's token, through a client of its own (its app does not run). */
async function withApi<T>(config: Config, call: (api: BotApi) => Promise<T>): Promise<T> {
  const api = new BotApi({
    token: config.token!.reveal(),
    baseUrl: config.baseUrl!,
    caFiles: config.caFiles,
  });
  try {
    return await call(api);
  } finally {
    await api.close();
  }
}

/** Ends the subscription of the bot's webhook URL (its app is stopped by then). */
function unsubscriber(config: Config): () => Promise<void> {
  return async () => {
    await withApi(config, (api) => api.unsubscribe({ url: config.webhook.url! }));
  };
}

/**
 * The bot's configuration when the deployment may keep it cold (webhook mode), with the slot's secret
 * digest and unsubscribe set; undefined for a polling bot (a long poll is how it hears: it stays warm).
 */
export function coldConfig(slot: BotSlot, record: BotRecord, context: SlotContext): Config | undefined {
  const config = deployedConfig(context.config, record, context.env);
  if (config.mode !== 'webhook') return undefined;
  if (config.token) context.options.logger.addSecret?.(config.token.reveal());
  const secret = config.webhook.secret?.reveal();
  if (secret) context.options.logger.addSecret?.(secret);
  slot.secretDigest = secret === undefined ? undefined : createHash('sha256').update(secret).digest();
  slot.unsubscribe = unsubscriber(config);
  slot.coldable = true;
  return config;
}

/** A digest of the subscription the bot needs (URL, secret, update types), as the catalog keeps it. */
export function subscriptionDigest(config: Config): string {
  const { url, secret, updateTypes } = config.webhook;
  const spec = JSON.stringify([url, secret?.reveal() ?? null, [...(updateTypes ?? [])].sort()]);
  return createHash('sha256').update(spec).digest('base64url').slice(0, 32);
}

/** Makes sure the cold bot's webhook subscription is in place (what `startApp` does when it starts). */
export async function subscribeCold(config: Config): Promise<EnsureResult> {
  const { url, secret, updateTypes } = config.webhook;
  return withApi(config, (api) =>
    ensureSubscription(api, {
      url: url!,
      ...(secret ? { secret: secret.reveal() } : {}),
      ...(updateTypes ? { types: updateTypes } : {}),
    }),
  );
}

/** Stops the bot's app gracefully (what it holds in its database, timers and campaigns, stays there). */
export async function stopSlot(
  slot: BotSlot,
  status: 'idle' | 'paused' | 'failed' | 'stopping',
  reason?: string,
): Promise<void> {
  const { app, receiver } = slot;
  slot.status = 'stopping';
  slot.app = undefined;
  slot.receiver = undefined;
  await app?.close(status === 'paused' ? 'pause' : status === 'idle' ? 'idle' : 'close');
  await receiver?.close();
  slot.status = status;
  slot.reason = reason;
}

/** A new slot for a catalog record (not started). */
export function newSlot(record: BotRecord): BotSlot {
  return {
    name: record.name,
    alias: record.alias,
    status: record.paused ? 'paused' : 'starting',
    ...(record.paused ? { reason: record.pausedReason ?? 'paused' } : {}),
    ...(record.botId !== undefined ? { botId: record.botId } : {}),
    ...(record.username !== undefined ? { username: record.username } : {}),
    work: Promise.resolve(),
    starts: 0,
  };
}

/** The slot as `bots()` lists it. */
export function shownSlot(slot: BotSlot): DeploymentBot {
  return {
    name: slot.name,
    alias: slot.alias,
    status: slot.status,
    ...(slot.reason !== undefined ? { reason: slot.reason } : {}),
    ...(slot.botId !== undefined ? { botId: slot.botId } : {}),
    ...(slot.username !== undefined ? { username: slot.username } : {}),
  };
}
