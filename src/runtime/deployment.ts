/**
 * `startDeployment`: many bots in one process (docs/bots.md). Each bot of the catalog runs its own app
 * (`startApp` with the `Config` `botConfigFor` derives: its token, flows, database and settings), started a
 * few at a time; one that cannot start is marked failed with its reason and the others serve. Webhook bots
 * share one HTTP server, routed by an opaque alias (deployment-http.ts). The catalog (`BotsCatalog`) is
 * seeded from `bots:` and polled for changes (`botflow bots add|remove|pause|resume` from another
 * process), applied without a restart. Pausing stops a bot's app gracefully: its timers and campaigns stay
 * in its database and run when it resumes.
 */
import { existsSync } from 'node:fs';
import { BotflowError } from '../errors/index.ts';
import type { BotRecord, BotsCatalog } from '../store/ports/bots-catalog.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import type { StartAppOptions } from './app-parts.ts';
import { openSharedStore } from './app-store.ts';
import { openBotsCatalog } from './bots-catalog.ts';
import type { Config } from './config.ts';
import { type BotSpec, botAlias } from './config-bots.ts';
import {
  type BotSlot,
  coldConfig,
  type DeploymentBot,
  newSlot,
  type SlotContext,
  shownSlot,
  startSlot,
  stopSlot,
  subscribeCold,
  subscriptionDigest,
} from './deployment-bot.ts';
import { startDeploymentServer } from './deployment-http.ts';
import { every, limiter, nextWakeUp, quiet, WakeUps } from './deployment-idle.ts';
import { operations, type RunningDeployment } from './deployment-operations.ts';

export type { DeploymentBot, DeploymentBotStatus } from './deployment-bot.ts';
export type { RunningDeployment } from './deployment-operations.ts';

/** What `startDeployment` needs besides the configuration. */
export interface DeploymentOptions extends Omit<StartAppOptions, 'mountWebhook' | 'recorder'> {
  /** Which bots to serve, shared with `botflow bots`; default the configured database's (`openBotsCatalog`), seeded from `bots:`. */
  catalog?: BotsCatalog;
  /** Where `token: { env }` is read from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Bots started at once (default 4). */
  startConcurrency?: number;
  /** How often the catalog's version is polled, in ms (default 2000). */
  catalogPollMs?: number;
  /**
   * A webhook bot with nothing to do for this long (ms, default 60 000) is stopped and kept cold until a
   * delivery or its next timer (docs/bots.md "What an idle bot costs"); `Infinity` keeps every bot warm.
   */
  idleMs?: number;
}

function seedRecord(config: Config, spec: BotSpec): BotRecord {
  return {
    name: spec.name,
    alias: botAlias(config, spec),
    ...('file' in spec.token && spec.token.file ? { tokenFile: spec.token.file } : {}),
    ...('env' in spec.token && spec.token.env ? { tokenEnv: spec.token.env } : {}),
    paused: spec.paused ?? false,
    addedAt: wallNow(),
  };
}

/** The deployment's bots and how they follow the catalog. */
class Deployment {
  readonly slots = new Map<string, BotSlot>();
  /** Each served bot's record as last read, for warming a cold bot. */
  private readonly records = new Map<string, BotRecord>();
  readonly wakeUps = new WakeUps((name) => {
    const slot = this.slots.get(name);
    if (slot) void this.warm(slot);
  });
  private readonly limit: <T>(task: () => Promise<T>) => Promise<T>;
  private seen = -1;
  private reconciling = Promise.resolve();

  constructor(
    private readonly config: Config,
    readonly catalog: BotsCatalog,
    private readonly context: SlotContext,
    concurrency: number,
    readonly idleMs: number,
  ) {
    this.limit = limiter(concurrency);
  }

  all(): BotSlot[] {
    return [...this.slots.values()];
  }

  start(slot: BotSlot, record: BotRecord): Promise<void> {
    slot.status = 'starting';
    slot.work = slot.work.then(() => this.limit(() => startSlot(slot, record, this.context)));
    return slot.work;
  }

  stop(slot: BotSlot, status: 'paused' | 'stopping', reason?: string): Promise<void> {
    this.wakeUps.set(slot.name, undefined);
    slot.work = slot.work.then(() => stopSlot(slot, status, reason));
    return slot.work;
  }

  /**
   * A new webhook bot is kept cold (`idle`): nothing opened; its subscription made (a few at a time) unless
   * the catalog's digest says it is in place; false when it cannot be cold (polling, never cold, or its
   * config fails: `start` says why).
   */
  private startCold(slot: BotSlot, record: BotRecord): Promise<void> | false {
    if (this.idleMs === Number.POSITIVE_INFINITY) return false;
    let config: Config | undefined;
    try {
      config = coldConfig(slot, record, this.context);
    } catch {
      return false; // startSlot says why it cannot start
    }
    if (!config) return false;
    slot.status = 'idle';
    // Its next wake-up as its last stop recorded; a bot never kept cold whose data exists is woken once.
    const fresh = !config.database.url && !existsSync(config.database.path);
    const unknown = record.subscription === undefined && !fresh ? wallNow() : undefined;
    this.wakeUps.set(slot.name, record.wakeAt ?? unknown);
    const digest = subscriptionDigest(config);
    return record.subscription === digest ? Promise.resolve() : this.subscribe(slot, config, digest);
  }

  /** Makes the cold bot's subscription (a few at a time) and keeps its digest in the catalog; a refusal fails the bot. */
  private subscribe(slot: BotSlot, config: Config, digest: string): Promise<void> {
    const { logger } = this.context.options;
    slot.subscribed = false;
    return this.limit(() => subscribeCold(config))
      .then(async (result) => {
        slot.subscribed = true;
        logger.info(
          { bot: slot.name, action: result.action },
          `bot ${slot.name}: webhook subscription ${result.action}`,
        );
        await this.catalog.update(slot.name, { subscription: digest });
      })
      .catch((error: unknown) => {
        if (slot.subscribed) {
          logger.warn(
            { bot: slot.name, err: error },
            `bot ${slot.name}: the catalog could not keep its subscription`,
          );
          return;
        }
        if (slot.status !== 'idle') return;
        slot.status = 'failed';
        slot.reason = `its webhook subscription failed: ${error instanceof Error ? error.message : String(error)}`;
        logger.error({ bot: slot.name }, `bot ${slot.name} is left out: ${slot.reason}`);
      });
  }

  /** Starts a cold bot (a delivery or its wake-up came); resolves once it runs (or failed, or stays down). */
  async warm(slot: BotSlot): Promise<void> {
    for (let round = 0; round < 3 && !slot.receiver; round++) {
      if (slot.status === 'idle') {
        const record = this.records.get(slot.name);
        if (!record) return;
        this.wakeUps.set(slot.name, undefined);
        this.noteWakeUp(slot.name, wallNow()); // should this process die while it runs, the next one wakes it
        void this.start(slot, record);
      } else if (slot.status !== 'starting' && slot.status !== 'stopping') return;
      await slot.work;
    }
  }

  /** Keeps the bot's wake-up in the catalog (a restart starts it cold, woken then). */
  private noteWakeUp(name: string, at: number | undefined): void {
    this.catalog.update(name, { wakeAt: at ?? null }).catch((error: unknown) => {
      this.context.options.logger.warn(
        { bot: name, err: error },
        `bot ${name}: the catalog could not keep its wake-up`,
      );
    });
  }

  /** Warm webhook bots with nothing to do for `idleMs` are stopped and kept cold, their next wake-up noted. */
  async sweep(): Promise<void> {
    const now = wallNow();
    const cooling = this.all().filter(
      (slot) => slot.coldable && slot.status === 'running' && now - (slot.lastActive ?? now) >= this.idleMs,
    );
    await Promise.all(cooling.map((slot) => this.cool(slot)));
  }

  private cool(slot: BotSlot): Promise<void> {
    slot.work = slot.work.then(async () => {
      const engine = slot.app?.engine;
      if (slot.status !== 'running' || !engine || wallNow() - (slot.lastActive ?? 0) < this.idleMs) return;
      if (!(await quiet(engine))) return;
      const at = await nextWakeUp(engine);
      await stopSlot(slot, 'idle');
      this.wakeUps.set(slot.name, at);
      this.noteWakeUp(slot.name, at);
      this.context.options.logger.debug(
        { bot: slot.name, wakeUpAt: at },
        `bot ${slot.name} had nothing to do: it is idle (cold)`,
      );
    });
    return slot.work.catch(() => {});
  }

  /** A removed webhook bot's subscription ends (its data stays); a failure is logged, not thrown. */
  private async unsubscribe(slot: BotSlot): Promise<void> {
    await slot.unsubscribe?.().catch((error: unknown) => {
      this.context.options.logger.warn(
        { bot: slot.name, err: error },
        `bot ${slot.name} was removed but its webhook subscription could not be ended`,
      );
    });
  }

  /** Catches up with the catalog: starts, pauses, resumes and removes bots as its records say. */
  refresh(): Promise<void> {
    this.reconciling = this.reconciling.catch(() => {}).then(() => this.reconcile());
    return this.reconciling;
  }

  /** Refreshes when the catalog's version moved. */
  async poll(): Promise<void> {
    if ((await this.catalog.version()) !== this.seen) await this.refresh();
  }

  private async reconcile(): Promise<void> {
    this.seen = await this.catalog.version();
    const live = (await this.catalog.list()).filter((record) => record.removedAt === undefined);
    const names = new Set(live.map((record) => record.name));
    const work: Promise<void>[] = [];
    for (const slot of this.all()) {
      if (names.has(slot.name)) continue;
      this.slots.delete(slot.name);
      this.records.delete(slot.name);
      work.push(this.stop(slot, 'stopping', 'removed').then(() => this.unsubscribe(slot)));
    }
    for (const record of live) {
      this.records.set(record.name, record);
      const slot = this.slots.get(record.name);
      if (!slot) {
        const created = newSlot(record);
        this.slots.set(record.name, created);
        const cold = !record.paused && this.startCold(created, record);
        if (cold) work.push(cold);
        else if (!record.paused) work.push(this.start(created, record));
      } else if (record.paused && ['running', 'starting', 'idle'].includes(slot.status)) {
        work.push(this.stop(slot, 'paused', record.pausedReason ?? 'paused'));
      } else if (!record.paused && slot.status === 'paused') work.push(this.start(slot, record));
    }
    await Promise.all(work);
  }

  /** The bot's record, added to the catalog from `bots:` when it is not there. */
  async known(name: string): Promise<BotRecord> {
    const record = await this.catalog.get(name);
    if (record) return record;
    const spec = this.config.bots?.find((bot) => bot.name === name);
    if (!spec)
      throw new BotflowError('BOTFLOW_CONFIG_INVALID', `no bot named ${name} in bots: or in the catalog`);
    const seeded = seedRecord(this.config, spec);
    await this.catalog.add(seeded);
    return seeded;
  }

  shown(name: string): DeploymentBot {
    const slot = this.slots.get(name);
    if (!slot) throw new BotflowError('BOTFLOW_CONFIG_INVALID', `no bot named ${name} is served`);
    return shownSlot(slot);
  }

  async stopAll(): Promise<void> {
    this.wakeUps.stop();
    await this.reconciling.catch(() => {});
    await Promise.all(
      this.all().map(async (slot) => {
        await this.keepWakeUp(slot);
        await this.stop(slot, 'stopping');
      }),
    );
  }

  /** A warm webhook bot stopped with the deployment: its next wake-up (now, when it has work) for the next start. */
  private keepWakeUp(slot: BotSlot): Promise<void> {
    slot.work = slot.work.then(async () => {
      const engine = slot.app?.engine;
      if (!slot.coldable || slot.status !== 'running' || !engine) return;
      const at = (await quiet(engine)) ? await nextWakeUp(engine) : wallNow();
      await this.catalog.update(slot.name, { wakeAt: at ?? null });
    });
    return slot.work.catch((error: unknown) => {
      this.context.options.logger.warn(
        { bot: slot.name, err: error },
        `bot ${slot.name}: its wake-up could not be kept`,
      );
    });
  }
}

/** Closes `server` (if any), then throws `error` again. */
const closing =
  (server: { close(): Promise<void> } | undefined) =>
  async (error: unknown): Promise<never> => {
    await server?.close();
    throw error;
  };

/** Starts every bot of the deployment. Throws only when the shared server cannot listen or PostgreSQL cannot be reached. */
export async function startDeployment(
  config: Config,
  options: DeploymentOptions,
): Promise<RunningDeployment> {
  const catalog = options.catalog ?? (await openBotsCatalog(config));
  const { catalog: _catalog, env, startConcurrency, catalogPollMs, idleMs, ...appOptions } = options;
  const context: SlotContext = {
    config,
    env: env ?? process.env,
    options: appOptions,
    identified: (name, identity) => {
      catalog.update(name, identity).catch((error: unknown) => {
        options.logger.warn({ err: error, bot: name }, 'the catalog could not record the bot id');
      });
    },
  };
  for (const spec of config.bots ?? []) {
    if (!(await catalog.get(spec.name))) await catalog.add(seedRecord(config, spec));
  }
  const deployment = new Deployment(config, catalog, context, startConcurrency ?? 4, idleMs ?? 60_000);
  const webhooks = config.mode === 'webhook' || (config.bots ?? []).some((bot) => bot.mode === 'webhook');
  const server = webhooks
    ? await startDeploymentServer(
        {
          path: config.webhook.path,
          byAlias: (alias) => deployment.all().find((slot) => slot.alias === alias),
          byName: (name) => deployment.slots.get(name),
          all: () => deployment.all(),
          shown: shownSlot,
          warm: (slot) => deployment.warm(slot),
        },
        config.webhook.host,
        config.webhook.port,
      )
    : undefined;
  // On PostgreSQL one pool and one LISTEN connection for every bot, each in its schema.
  const postgres = options.postgres ?? (await openSharedStore(config).catch(closing(server)));
  if (postgres) context.options.postgres = postgres;
  await deployment.refresh();

  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    deployment
      .poll()
      .catch((error: unknown) => options.logger.warn({ err: error }, 'the bots catalog could not be read'))
      .finally(() => {
        polling = false;
      });
  }, catalogPollMs ?? 2000);
  timer.unref();
  const sweeper = every(Math.min(deployment.idleMs / 2, 10_000), () => deployment.sweep(), options.logger);

  return {
    ...operations(deployment),
    ...(server ? { address: server.address } : {}),
    async stop() {
      clearInterval(timer);
      clearInterval(sweeper);
      await deployment.stopAll();
      await server?.close();
      if (!options.postgres) await postgres?.close();
      if (!options.catalog) await catalog.close();
    },
  };
}
