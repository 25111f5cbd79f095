/**
 * The bot as one process among several on one PostgreSQL database (`database.url`): the same parts as
 * `startApp`, composed around the cluster engine. Any process may receive webhook deliveries (behind a
 * load balancer); in polling mode only the dispatcher polls, so that every call to the platform goes
 * through one scheduler. The process reports its role (partitions, dispatcher) in its log and on
 * `GET /healthz` / `GET /readyz`.
 *
 * Stopping: intake stops accepting, the engine finishes its batch, gives its leases back (the others take
 * its partitions at their next tick) and waits for its calls in flight; the pool closes last.
 */
import type { Logger } from 'pino';
import type { BotApi } from '../client/client.ts';
import { Scheduler } from '../client/scheduler/scheduler.ts';
import { throttledClient } from '../client/scheduler/throttled-client.ts';
import type { ClusterEngine } from '../engine/cluster-engine.ts';
import type { Role } from '../engine/lane/ownership.ts';
import { KV_KEYS } from '../store/kv.ts';
import { openPostgres, type PostgresDatabase } from '../store/postgres/database.ts';
import { PgInbox } from '../store/postgres/inbox.ts';
import { pgKvGet } from '../store/postgres/settings.ts';

import { connectToPlatform, loadFlowsOrRefuse, reloadFlows } from './app-common.ts';
import type { IntakeHandle, RunningApp, SandboxHandle, StartAppOptions } from './app-parts.ts';
import type { Config } from './config.ts';
import { type HealthProbe, healthRoutes, startHealthServer } from './health.ts';
import { runShutdown, type ShutdownStep, type StepOutcome } from './shutdown.ts';
import { describeListenError, StartupError } from './startup-error.ts';

/** Requests per second the dispatcher leaves for the other processes' own calls (start-up checks). */
export const CLUSTER_RESERVE_PER_SECOND = 2;

/** Starts a process of the bot on PostgreSQL. Throws `StartupError` (after closing what started) on failure. */
export async function startClusterApp(config: Config, options: StartAppOptions): Promise<RunningApp> {
  const { logger, parts } = options;
  let sandbox: SandboxHandle | undefined;
  let api: BotApi | undefined;
  let pg: PostgresDatabase | undefined;
  let scheduler: Scheduler | undefined;
  let engine: ClusterEngine | undefined;
  let intake: IntakeHandle | undefined;
  let poller: IntakeHandle | undefined;
  let health: { address: string; close(): Promise<void> } | undefined;
  let watcher: { close(): void } | undefined;
  let onRole: (role: Role) => void = () => {};
  let pruning: ReturnType<typeof setInterval> | undefined;

  const shutdownSteps = (): ShutdownStep[] => [
    { name: 'stop intake', started: () => !!intake, run: () => intake?.stop() },
    { name: 'stop polling', started: () => !!poller, run: () => poller?.stop() },
    { name: 'stop watching flows', started: () => !!watcher, run: () => watcher?.close() },
    { name: 'stop pruning', started: () => !!pruning, run: () => clearInterval(pruning) },
    {
      name: 'finish current steps, give the leases back and finish sends in flight',
      started: () => !!engine,
      run: async (deadline) => {
        scheduler?.close();
        const sendWaitMs = Math.min(config.shutdown.sendDeadlineMs, deadline - Date.now() - 500);
        await engine?.stop({ waitMs: Math.max(0, sendWaitMs) });
      },
    },
    { name: 'stop health checks', always: true, started: () => !!health, run: () => health?.close() },
    { name: 'close the recording', always: true, run: () => options.recorder?.close() },
    { name: 'close database', always: true, started: () => !!pg, run: () => pg?.close() },
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

    try {
      pg = await openPostgres({
        url: config.database.url!.reveal(),
        logger: logger.child({ component: 'store' }),
      });
    } catch (error) {
      throw new StartupError((error as Error).message, 5);
    }
    const database = pg;
    const flowLogger = logger.child({ component: 'flows' });
    const loaded = await loadFlowsOrRefuse(config, parts, flowLogger);
    scheduler = new Scheduler({
      api: options.recorder ? options.recorder.wrapApi(api) : api,
      // The dispatcher sends for every process; the others' few calls (self-check and subscription at start)
      // come out of a reserve of 2 per second, so all of them together stay within the bot's limit.
      limits: {
        global: Math.max(1, config.limits.requestsPerSecond - CLUSTER_RESERVE_PER_SECOND),
        perChat: config.limits.perChatPerSecond,
      },
      startPausedMs: 1_000,
      logger: logger.child({ component: 'scheduler' }),
    });
    const polling = config.mode === 'polling';
    const running = parts.createClusterEngine({
      pg: database,
      api,
      scheduler,
      flows: loaded.flows,
      ...(config.buttonSecret ? { secret: config.buttonSecret.reveal() } : {}),
      logger: logger.child({ component: 'engine' }),
      ...(check.bot.username ? { botUsername: check.bot.username } : {}),
      taskConcurrency: config.tasks.concurrency,
      onRole: (role) => onRole(role),
    });
    engine = running;
    if (options.recorder) running.on('task', (outcome) => options.recorder?.task(outcome));
    sandbox?.attachCluster?.(running, loaded);

    const probe: HealthProbe = {
      alive: () => running.alive(),
      ready: () => running.ready(),
      details: () => {
        const role = running.role();
        return {
          member: role.member,
          partitions: role.partitions.length,
          dispatcher: role.dispatcher,
          ...(polling ? { poller: role.dispatcher } : {}),
          members: role.members,
        };
      },
    };
    if (config.health.port !== undefined) {
      health = await startHealthServer({ host: config.health.host, port: config.health.port, probe }).catch(
        (error: unknown) => {
          const where = `the health checks cannot listen on ${config.health.host}:${config.health.port}`;
          throw describeListenError(error, where, 'health.port or BOTFLOW_HEALTH_PORT') ?? error;
        },
      );
    }

    const inbox = new PgInbox(database.pool);
    const intakeLogger = logger.child({ component: 'intake' });
    const accepted = () => running.notify();
    const throttled = throttledClient(scheduler);
    if (polling) {
      // Only the dispatcher polls (one scheduler for every call); it starts from the marker the last one committed.
      let switching = Promise.resolve();
      onRole = (role) => {
        switching = switching.then(async () => {
          if (role.dispatcher && !poller && engine) {
            const stored = await pgKvGet(database.pool, KV_KEYS.pollingMarker);
            poller = await parts.startPolling({
              api: throttled,
              conversationKey: config.conversationKey,
              onAccepted: accepted,
              logger: intakeLogger,
              timeoutSeconds: config.polling.timeoutSeconds,
              limit: config.polling.limit,
              ...(config.polling.updateTypes ? { types: config.polling.updateTypes } : {}),
              store: {
                marker: stored === undefined ? undefined : Number(stored),
                commit: (entries, next) => inbox.appendWithMarker(entries, KV_KEYS.pollingMarker, next),
              },
            });
          } else if (!role.dispatcher && poller) {
            const stopping = poller;
            poller = undefined;
            await stopping.stop();
          }
        });
        switching.catch((error: unknown) => logger.error({ err: error }, 'polling could not start or stop'));
      };
    }
    await running.start();
    onRole(running.role());
    pruning = startPruning(running, logger.child({ component: 'pruner' }));

    if (config.flows.watch && parts.watchFlows) {
      const shown = sandbox;
      watcher = parts.watchFlows(
        config.flows.dir,
        (next) => reloadFlows(running, next, flowLogger, shown),
        flowLogger,
      );
    }

    if (!polling) {
      const { host, port, path, url, secret, updateTypes } = config.webhook;
      try {
        intake = await parts.startWebhook({
          api: throttled,
          conversationKey: config.conversationKey,
          onAccepted: accepted,
          logger: intakeLogger,
          commit: (entries) => inbox.append(entries),
          host,
          port,
          path,
          url: url!,
          secret: secret!.reveal(),
          ...(updateTypes ? { types: updateTypes } : {}),
          ...(options.mountWebhook ? { mount: true } : {}),
          routes: healthRoutes(probe),
        });
      } catch (error) {
        const where = `the webhook receiver cannot listen on ${host}:${port}`;
        throw describeListenError(error, where, 'webhook.port or BOTFLOW_WEBHOOK_PORT') ?? error;
      }
    }
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
        ...(intake?.address ? { webhook: intake.address } : {}),
        ...(health ? { health: health.address } : {}),
      },
      bot: check.bot,
      flowCount: loaded.flows.length,
      cluster: running,
      failed,
      ...(intake?.plugin ? { webhook: intake.plugin } : {}),
      close(reason = 'close') {
        closing ??= (async () => {
          logger.info(
            { reason },
            'stopping: no new updates are accepted; handing over to the other processes',
          );
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
    await runShutdown(shutdownSteps(), { deadline: Date.now() + 5000, logger: logger as Logger });
    throw error;
  }
}

const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * Keeps the shared database from growing without end, as a single process does (runtime/app.ts): settled
 * inbox rows after 72 h, finished calls, timers and tasks after 7 days, the step log after 90 days.
 */
function startPruning(engine: ClusterEngine, logger: Logger): ReturnType<typeof setInterval> {
  const prune = () => {
    engine.prune().then(
      (pruned) => {
        if (Object.values(pruned).some((n) => n > 0)) logger.info(pruned, 'old rows pruned');
      },
      (error: unknown) => logger.error({ err: error }, 'pruning failed; will try again'),
    );
  };
  prune();
  const timer = setInterval(prune, PRUNE_EVERY_MS);
  timer.unref();
  return timer;
}
