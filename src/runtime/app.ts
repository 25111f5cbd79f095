/**
 * `startApp`: the bot assembled from the configuration, the same on both databases. The embedded sandbox
 * (or the configured platform) and the self-check, the database (`database.path`: SQLite; `database.url`:
 * PostgreSQL, where several processes share the work), the flows, the scheduler every call goes through,
 * the engine, health checks, pruning, and intake: a webhook receiver (any process may receive deliveries
 * behind a load balancer) or long polling (by the process that holds the dispatcher role: every call to
 * the platform then goes through one scheduler; one process always holds it).
 *
 * Stopping, in reverse: intake stops accepting, the engine finishes its batch and its calls in flight (and,
 * among several processes, gives its leases back: the others take its partitions at their next tick); the
 * database closes last.
 *
 * The parts, each in its module: the platform, the self-check and the flows (app-common.ts), the database
 * (app-store.ts), the scheduler, the engine, health checks, the backlog's progress and pruning
 * (app-engine.ts), intake (app-intake.ts), the events endpoint (app-events.ts), what started and how it
 * stops (app-shutdown.ts), and the running app handed back (app-running.ts).
 */

import { wallNow } from '../store/ports/wall-time.ts';
import { connectToPlatform, loadFlowsOrRefuse, reloadFlows } from './app-common.ts';
import {
  appEngine,
  appScheduler,
  backlogProgress,
  CLUSTER_RESERVE_PER_SECOND,
  healthProbe,
  startHealth,
  startPruning,
} from './app-engine.ts';
import { configuredEndpoint, startEventsServer } from './app-events.ts';
import { appIntake, intakeFailures, pollingSwitch, startWebhookIntake } from './app-intake.ts';
import type { RunningApp, StartAppOptions } from './app-parts.ts';
import { runningApp } from './app-running.ts';
import { nothingStarted, shutdownSteps } from './app-shutdown.ts';
import { openAppStore } from './app-store.ts';
import type { Config } from './config.ts';
import { runShutdown } from './shutdown.ts';

export { CLUSTER_RESERVE_PER_SECOND } from './app-engine.ts';
export type { AppAddresses, RunningApp, StartAppOptions } from './app-parts.ts';

/** Starts the bot. Throws `StartupError` (after closing what started) when it cannot. */
export async function startApp(config: Config, options: StartAppOptions): Promise<RunningApp> {
  const { logger, parts } = options;
  const started = nothingStarted();
  try {
    // Several processes (PostgreSQL): the database first, so that even the self-check takes a start in the
    // bot's shared budget. Every call outside the dispatcher does (cluster-budget.ts).
    if (config.database.url) started.database = await openAppStore(config, logger, options.postgres);
    started.budget = started.database?.sharedBudget?.({
      limit: CLUSTER_RESERVE_PER_SECOND,
      applies: () => !started.engine?.role().dispatcher,
    });
    const connected = await connectToPlatform(
      config,
      parts,
      options,
      {
        sandbox: (sandbox) => {
          started.sandbox = sandbox;
        },
        api: (api) => {
          started.api = api;
        },
      },
      started.budget,
    );
    const { api, baseUrl, bot } = connected;
    started.api = api;

    started.database ??= await openAppStore(config, logger, options.postgres);
    const database = started.database;
    const { store } = database;
    const flowLogger = logger.child({ component: 'flows' });
    const loaded = await loadFlowsOrRefuse(config, parts, flowLogger);
    const scheduler = appScheduler(config, options, api, database, started.budget);
    started.scheduler = scheduler;
    const polling = config.mode === 'polling';
    const running = appEngine(config, options, started, { store, api, scheduler, loaded, bot });
    const probe = healthProbe(running, started, store, polling);
    started.health = await startHealth(config, probe);

    const { failed, watch } = intakeFailures();
    const intake = appIntake(config, options, started, running, watch);
    const switchPolling = pollingSwitch(intake);
    if (polling) {
      started.onRole = (role) => {
        switchPolling(role).catch((error: unknown) =>
          logger.error({ err: error }, 'polling could not start or stop'),
        );
      };
    }

    started.stopProgress = (await backlogProgress(store, running, logger)) ?? started.stopProgress;
    await running.start();
    // The first poller is up before start returns (its marker handshake: updates after it are never skipped).
    if (polling) await switchPolling(running.role());
    started.pruning = startPruning(running, logger.child({ component: 'pruner' }));

    if (config.flows.watch && parts.watchFlows) {
      const shown = started.sandbox;
      started.watcher = parts.watchFlows(
        config.flows.dir,
        (next) => reloadFlows(running, next, flowLogger, shown),
        flowLogger,
      );
    }

    // External events (issue 29): the engine's sender (names and payloads checked, accepted rows recorded)
    // for the endpoint and the playground.
    const events = running.events;
    started.sandbox?.attachEvents?.(events);
    const token = config.token?.reveal() ?? started.sandbox?.token;
    const endpoint = configuredEndpoint(config, events, token, intake.logger);
    // Webhook mode serves it on the receiver's port (mounted: the embedding app mounts `eventsEndpoint`).
    if (endpoint && polling) started.eventsServer = await startEventsServer(config, endpoint);
    if (!polling) started.intake = await startWebhookIntake(intake, database.intake, probe, endpoint);
    if (started.intake) watch(started.intake);

    const flowCount = loaded.flows.length;
    return runningApp(config, options, started, {
      baseUrl,
      bot,
      flowCount,
      engine: running,
      endpoint,
      polling,
      failed,
    });
  } catch (error) {
    await runShutdown(shutdownSteps(config, options, started), { deadline: wallNow() + 5000, logger });
    throw error;
  }
}
