/**
 * The whole bot as one process: configuration in, running parts out. `startApp` starts them in dependency
 * order (sandbox in the embedded default, API client, self-check, database, flows, scheduler, engine,
 * intake) and returns `close()`, which stops them in the reverse order under one deadline: intake first so
 * nothing new is accepted, then the engine finishes its current steps, sends in flight get a deadline, and
 * the database closes last. Anything accepted but not processed stays pending in the inbox for the next start.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import type { FastifyPluginCallback } from 'fastify';
import type { Logger } from 'pino';
import type { BotApi } from '../client/client.ts';
import { Scheduler } from '../client/scheduler/scheduler.ts';
import { throttledClient } from '../client/scheduler/throttled-client.ts';
import { startWriterThread, type WriterThread } from '../engine/commit/writer-thread.ts';
import type { Engine } from '../engine/engine.ts';
import { startInboxPruner } from '../inbox/pruner.ts';
import { openDatabase } from '../store/database.ts';
import { EngineInbox } from '../store/engine-inbox.ts';
import { connectToPlatform, loadFlowsOrRefuse, reloadFlows } from './app-common.ts';
import type {
  AppParts,
  IntakeHandle,
  IntakeOptions,
  RunningApp,
  SandboxHandle,
  StartAppOptions,
} from './app-parts.ts';
import { startClusterApp } from './cluster-app.ts';
import type { Config } from './config.ts';
import { watchGroupRights } from './group-rights.ts';
import { type HealthProbe, healthRoutes, startHealthServer } from './health.ts';
import { trackProgress } from './progress.ts';
import { runShutdown, type ShutdownStep, type StepOutcome } from './shutdown.ts';
import { describeListenError } from './startup-error.ts';

export type { AppAddresses, RunningApp, StartAppOptions } from './app-parts.ts';

/** Backlogs smaller than this are processed without a progress line. */
const PROGRESS_THRESHOLD = 500;

/** Starts every part the configuration asks for. Throws `StartupError` (after closing what started) on failure. */
export async function startApp(config: Config, options: StartAppOptions): Promise<RunningApp> {
  if (config.database.url) return startClusterApp(config, options);
  const { logger, parts } = options;
  let sandbox: SandboxHandle | undefined;
  let api: BotApi | undefined;
  let db: Database.Database | undefined;
  let writer: WriterThread | undefined;
  let scheduler: Scheduler | undefined;
  let engine: Engine | undefined;
  let intake: IntakeHandle | undefined;
  let watcher: { close(): void } | undefined;
  let stopProgress = () => {};
  let stopPruning: (() => void) | undefined;
  let stopHealth: (() => void | Promise<void>) | undefined;
  let healthAddress: string | undefined;

  // Reverse start order, except that the scheduler stops sending first: what was never sent returns to the
  // outbox, what was sent is recorded while the database is open, and nothing is sent that cannot be.
  const shutdownSteps = (): ShutdownStep[] => [
    { name: 'stop intake', started: () => !!intake, run: () => intake?.stop() },
    { name: 'stop watching flows', started: () => !!watcher, run: () => watcher?.close() },
    { name: 'stop pruning', started: () => !!stopPruning, run: () => stopPruning?.() },
    { name: 'stop health checks', started: () => !!stopHealth, run: () => stopHealth?.() },
    {
      name: 'finish current steps and sends in flight',
      started: () => !!engine,
      run: async (deadline) => {
        stopProgress();
        // Nothing new goes out from here: calls still queued go back to the outbox (pending, sent at the
        // next start), calls in flight get until the deadline and their answers are recorded below.
        scheduler?.close();
        const sendWaitMs = Math.min(config.shutdown.sendDeadlineMs, deadline - Date.now() - 500);
        await engine?.stop({ waitMs: Math.max(0, sendWaitMs) });
        if (db?.open) {
          const left = new EngineInbox(db).pendingCount();
          if (left > 0)
            logger.info({ pending: left }, `${left} accepted event(s) stay pending for the next start`);
        }
      },
    },
    { name: 'close the recording', always: true, run: () => options.recorder?.close() },
    { name: 'stop the writer thread', always: true, started: () => !!writer, run: () => writer?.close() },
    { name: 'close database', always: true, started: () => !!db, run: () => db?.open && db.close() },
    { name: 'stop scheduler', always: true, started: () => !!scheduler, run: () => scheduler?.close() },
    { name: 'close API client', started: () => !!api, run: () => api?.close() },
    { name: 'stop sandbox', always: true, started: () => !!sandbox, run: () => sandbox?.close() },
  ];

  try {
    const connected = await connectToPlatform(config, parts, options, {
      sandbox: (started) => {
        sandbox = started;
      },
      api: (started) => {
        api = started;
      },
    });
    api = connected.api;
    const { baseUrl } = connected;
    const check = { bot: connected.bot };

    if (config.database.path !== ':memory:') mkdirSync(dirname(config.database.path), { recursive: true });
    db = openDatabase({
      path: config.database.path,
      synchronous: config.database.synchronous,
      logger: logger.child({ component: 'store' }),
    });
    if (config.database.writerThread && config.database.path !== ':memory:') {
      writer = await startWriterThread({
        path: config.database.path,
        synchronous: config.database.synchronous,
      });
    }

    const flowLogger = logger.child({ component: 'flows' });
    const loaded = await loadFlowsOrRefuse(config, parts, flowLogger);

    scheduler = new Scheduler({
      api: options.recorder ? options.recorder.wrapApi(api) : api,
      limits: { global: config.limits.requestsPerSecond, perChat: config.limits.perChatPerSecond },
      // The previous process may have spent this second's budget just before it stopped.
      startPausedMs: 1_000,
      logger: logger.child({ component: 'scheduler' }),
    });
    const running = parts.createEngine({
      db,
      ...(writer ? { writer } : {}),
      api,
      scheduler,
      flows: loaded.flows,
      ...(config.buttonSecret ? { secret: config.buttonSecret.reveal() } : {}),
      logger: logger.child({ component: 'engine' }),
      taskConcurrency: config.tasks.concurrency,
      ...(check.bot.username ? { botUsername: check.bot.username } : {}),
    });
    engine = running;
    if (options.recorder) running.on('task', (outcome) => options.recorder?.task(outcome));
    watchGroupRights(running, scheduler, logger.child({ component: 'engine' }));
    sandbox?.attachEngine?.(running, loaded);
    const inbox = new EngineInbox(db);
    if (inbox.pendingCount() >= PROGRESS_THRESHOLD) {
      stopProgress = trackProgress({
        label: 'processing events left from the last run',
        remaining: () => (db?.open ? inbox.pendingCount() : 0),
        logger,
      });
    }
    running.start();
    let engineRunning = true;
    const probe: HealthProbe = {
      alive: () => engineRunning && !!db?.open,
      ready: () => engineRunning && !!db?.open,
      details: () => ({ database: 'sqlite' }),
    };
    stopHealth = () => {
      engineRunning = false;
    };
    if (config.health.port !== undefined) {
      const server = await startHealthServer({
        host: config.health.host,
        port: config.health.port,
        probe,
      }).catch((error: unknown) => {
        const where = `the health checks cannot listen on ${config.health.host}:${config.health.port}`;
        throw describeListenError(error, where, 'health.port or BOTFLOW_HEALTH_PORT') ?? error;
      });
      healthAddress = server.address;
      const stopChecks = stopHealth;
      stopHealth = () => {
        stopChecks();
        return server.close();
      };
    }
    stopPruning = startPruning(db, running, logger.child({ component: 'pruner' }));

    if (config.flows.watch && parts.watchFlows) {
      const shown = sandbox;
      watcher = parts.watchFlows(
        config.flows.dir,
        (next) => reloadFlows(running, next, flowLogger, shown),
        flowLogger,
      );
    }

    const common = {
      api,
      db,
      conversationKey: config.conversationKey,
      onAccepted: (batch?: { ids: number[] }) => {
        if (options.recorder && db && batch) options.recorder.accepted(db, batch.ids);
        running.notify();
      },
      logger: logger.child({ component: 'intake' }),
    };
    intake = await startIntake(config, parts, common, scheduler, writer, options, healthRoutes(probe));
    // Plain Error: only wraps a thrown non-Error so it can be reported; it is not an error of its own.
    const failed = new Promise<Error>((resolve) => {
      intake?.done?.catch((error: unknown) =>
        resolve(error instanceof Error ? error : new Error(String(error))),
      );
    });

    let closing: Promise<{ clean: boolean; steps: StepOutcome[] }> | undefined;
    return {
      addresses: {
        api: baseUrl,
        ...(sandbox
          ? { sandbox: sandbox.baseUrl, webChat: sandbox.webChatUrl ?? `${sandbox.baseUrl}/` }
          : {}),
        ...(intake.address ? { webhook: intake.address } : {}),
        ...(healthAddress ? { health: healthAddress } : {}),
      },
      bot: check.bot,
      flowCount: loaded.flows.length,
      engine: running,
      failed,
      ...(intake.plugin ? { webhook: intake.plugin } : {}),
      close(reason = 'close') {
        closing ??= (async () => {
          logger.info({ reason }, 'stopping: no new updates are accepted; finishing the current steps');
          const deadline = Date.now() + config.shutdown.timeoutMs - 1000;
          const result = await runShutdown(shutdownSteps(), { deadline, logger });
          logger.info(
            { clean: result.clean },
            result.clean ? 'stopped' : 'stopped; some steps ran out of time',
          );
          return result;
        })();
        return closing;
      },
    };
  } catch (error) {
    await runShutdown(shutdownSteps(), { deadline: Date.now() + 5000, logger });
    throw error;
  }
}

const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * Keeps the database from growing without end: settled inbox rows after intake's retention (72 h), and
 * finished outbox, timer and task rows after the engine's (7 days), the funnel's step log after 90 days.
 * Pending work is never touched.
 */
function startPruning(db: Database.Database, engine: Engine, logger: Logger): () => void {
  const stopInbox = startInboxPruner({ db, intervalMs: PRUNE_EVERY_MS, logger });
  const pruneEngine = () => {
    try {
      const pruned = engine.prune();
      if (pruned.outbox + pruned.timers + pruned.tasks + pruned.stepLog > 0)
        logger.info(pruned, 'outbox, timers, tasks and step log pruned');
    } catch (error) {
      logger.error({ err: error }, 'pruning the outbox, timers, tasks and step log failed; will try again');
    }
  };
  pruneEngine();
  const timer = setInterval(pruneEngine, PRUNE_EVERY_MS);
  timer.unref();
  return () => {
    stopInbox();
    clearInterval(timer);
  };
}

/** Webhook receiver or long polling, as configured; every call to the platform goes through the scheduler. */
async function startIntake(
  config: Config,
  parts: AppParts,
  common: IntakeOptions,
  scheduler: Scheduler,
  writer: WriterThread | undefined,
  options: StartAppOptions,
  routes: FastifyPluginCallback,
): Promise<IntakeHandle> {
  // The subscription check and the polls count in the same 30-per-second window as everything else.
  const api = throttledClient(scheduler);
  if (config.mode === 'webhook') {
    const { host, port, path, url, secret, updateTypes } = config.webhook;
    try {
      const thread = writer;
      return await parts.startWebhook({
        ...common,
        api,
        ...(thread ? { commit: (entries) => thread.append(entries) } : {}),
        host,
        port,
        path,
        url: url!,
        secret: secret!.reveal(),
        ...(updateTypes ? { types: updateTypes } : {}),
        ...(options.mountWebhook ? { mount: true } : {}),
        routes,
      });
    } catch (error) {
      const where = `the webhook receiver cannot listen on ${host}:${port}`;
      throw describeListenError(error, where, 'webhook.port or BOTFLOW_WEBHOOK_PORT') ?? error;
    }
  } else {
    return parts.startPolling({
      ...common,
      api,
      timeoutSeconds: config.polling.timeoutSeconds,
      limit: config.polling.limit,
      ...(config.polling.updateTypes ? { types: config.polling.updateTypes } : {}),
    });
  }
}
