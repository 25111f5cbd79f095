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
 */
import type { Logger } from 'pino';
import type { BotApi } from '../client/client.ts';
import { Scheduler } from '../client/scheduler/scheduler.ts';
import type { SharedBudget } from '../client/scheduler/shared-budget.ts';
import { throttledClient } from '../client/scheduler/throttled-client.ts';
import type { Engine } from '../engine/engine.ts';
import type { Role } from '../engine/lane/ownership.ts';
import { connectToPlatform, loadFlowsOrRefuse, reloadFlows } from './app-common.ts';
import { configuredEndpoint, startEventsServer } from './app-events.ts';
import type { IntakeHandle, RunningApp, SandboxHandle, StartAppOptions } from './app-parts.ts';
import { type AppStore, openAppStore } from './app-store.ts';
import type { Config } from './config.ts';
import { watchGroupRights } from './group-rights.ts';
import { type HealthProbe, healthRoutes, startHealthServer } from './health.ts';
import { spacedPolls } from './poll-spacing.ts';
import { trackProgress } from './progress.ts';
import { runShutdown, type ShutdownStep, type StepOutcome } from './shutdown.ts';
import { describeListenError } from './startup-error.ts';

export type { AppAddresses, RunningApp, StartAppOptions } from './app-parts.ts';

/** Requests per second the dispatcher leaves for every call made outside it, shared through the database (cluster-budget.ts). */
export const CLUSTER_RESERVE_PER_SECOND = 2;

const PROGRESS_THRESHOLD = 500;
const PRUNE_EVERY_MS = 10 * 60_000;

/** Starts the bot. Throws `StartupError` (after closing what started) when it cannot. */
export async function startApp(config: Config, options: StartAppOptions): Promise<RunningApp> {
  const { logger, parts } = options;
  let sandbox: SandboxHandle | undefined;
  let api: BotApi | undefined;
  let database: AppStore | undefined;
  let scheduler: Scheduler | undefined;
  let engine: Engine<boolean> | undefined;
  let intake: IntakeHandle | undefined;
  let poller: IntakeHandle | undefined;
  let health: { address: string; close(): Promise<void> } | undefined;
  let draining = false; // shutting down: not ready, whatever the engine says
  const drain = async (ms: number, deadline: number) => {
    draining = true;
    const wait = Math.min(ms, deadline - Date.now() - 1000);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  };
  let eventsServer: { address: string; close(): Promise<void> } | undefined;
  let watcher: { close(): void } | undefined;
  let stopProgress = () => {};
  let pruning: ReturnType<typeof setInterval> | undefined;
  let onRole: (role: Role) => void = () => {};
  let budget: SharedBudget | undefined;

  // Reverse start order, except that the scheduler stops sending first: what was never sent returns to the
  // outbox, what was sent is recorded while the database is open, and nothing is sent that cannot be.
  const shutdownSteps = (): ShutdownStep[] => [
    {
      // Readiness first: `/readyz` answers 503 while intake still takes deliveries, so that a load balancer
      // stops sending here before the receiver closes (`shutdown.drainMs`).
      name: 'answer not ready',
      run: (deadline) => drain(config.shutdown.drainMs, deadline),
    },
    { name: 'stop the events endpoint', started: () => !!eventsServer, run: () => eventsServer?.close() },
    { name: 'stop intake', started: () => !!intake, run: () => intake?.stop() },
    { name: 'stop polling', started: () => !!poller, run: () => poller?.stop() },
    { name: 'stop watching flows', started: () => !!watcher, run: () => watcher?.close() },
    { name: 'stop pruning', started: () => !!pruning, run: () => clearInterval(pruning) },
    {
      name: 'finish current steps and sends in flight',
      started: () => !!engine,
      run: async (deadline) => {
        stopProgress();
        // Nothing new goes out from here: calls still queued go back to the outbox (pending, sent at the
        // next start), calls in flight get until the deadline and their answers are recorded below.
        scheduler?.close();
        budget?.close();
        const sendWaitMs = Math.min(config.shutdown.sendDeadlineMs, deadline - Date.now() - 500);
        await engine?.stop({ waitMs: Math.max(0, sendWaitMs) });
        const left = await Promise.resolve(engine?.store.pendingCount(engine.role().partitions)).catch(
          () => 0,
        );
        if (left && !database?.shared)
          logger.info({ pending: left }, `${left} accepted event(s) stay pending for the next start`);
      },
    },
    { name: 'stop health checks', always: true, started: () => !!health, run: () => health?.close() },
    { name: 'close the recording', always: true, run: () => options.recorder?.close() },
    { name: 'close database', always: true, started: () => !!database, run: () => database?.close() },
    { name: 'stop scheduler', always: true, started: () => !!scheduler, run: () => scheduler?.close() },
    { name: 'close API client', started: () => !!api, run: () => api?.close() },
    { name: 'stop sandbox', always: true, started: () => !!sandbox, run: () => sandbox?.close() },
  ];

  try {
    // Several processes (PostgreSQL): the database first, so that even the self-check takes a start in the
    // bot's shared budget. Every call outside the dispatcher does (cluster-budget.ts).
    if (config.database.url) database = await openAppStore(config, logger);
    budget = database?.sharedBudget?.({
      limit: CLUSTER_RESERVE_PER_SECOND,
      applies: () => !engine?.role().dispatcher,
    });
    const connected = await connectToPlatform(
      config,
      parts,
      options,
      {
        sandbox: (started) => {
          sandbox = started;
        },
        api: (started) => {
          api = started;
        },
      },
      budget,
    );
    api = connected.api;
    const { baseUrl } = connected;
    const check = { bot: connected.bot };

    database ??= await openAppStore(config, logger);
    const { store, intake: intakeStore } = database;
    const flowLogger = logger.child({ component: 'flows' });
    const loaded = await loadFlowsOrRefuse(config, parts, flowLogger);

    // Several processes: the dispatcher sends for all of them within the bot's limit less a reserve; every
    // call made outside it (self-check and subscription at start, tasks' "typing…") takes a start in that
    // reserve, shared through the database, so all of them together stay within the bot's limit.
    const reserve = database.shared ? CLUSTER_RESERVE_PER_SECOND : 0;
    scheduler = new Scheduler({
      api: options.recorder ? options.recorder.wrapApi(api) : api,
      limits: {
        global: Math.max(1, config.limits.requestsPerSecond - reserve),
        perChat: config.limits.perChatPerSecond,
      },
      // The previous process may have spent this second's budget just before it stopped.
      startPausedMs: 1_000,
      ...(budget ? { sharedBudget: budget } : {}),
      logger: logger.child({ component: 'scheduler' }),
    });
    const polling = config.mode === 'polling';
    const running = parts.createEngine({
      store,
      api,
      scheduler,
      flows: loaded.flows,
      ...(config.buttonSecret ? { secret: config.buttonSecret.reveal() } : {}),
      logger: logger.child({ component: 'engine' }),
      taskConcurrency: config.tasks.concurrency,
      ...(check.bot.username ? { botUsername: check.bot.username } : {}),
      onRole: (role) => onRole(role),
      conversationKey: config.conversationKey,
      funnelSamples: config.funnel.samples,
    });
    engine = running;
    if (options.recorder) {
      running.on('task', (outcome) => options.recorder?.task(outcome));
      running.on('accepted', (row) => options.recorder?.event(row));
    }
    watchGroupRights(running, scheduler, logger.child({ component: 'engine' }));
    sandbox?.attachEngine?.(running, loaded);

    const probe: HealthProbe = {
      alive: () => running.alive(),
      ready: () => !draining && running.ready(),
      details: () => {
        const role = running.role();
        if (!database?.shared) return { database: store.kind };
        return {
          database: store.kind,
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

    const intakeLogger = logger.child({ component: 'intake' });
    const accepted = (batch?: { payloads: string[] }) => {
      if (options.recorder && batch) options.recorder.accepted(batch.payloads);
      running.notify();
    };
    // The subscription check and the polls count in the same 30-per-second window as everything else.
    const throttled = throttledClient(scheduler);
    // Resolves with the reason when intake fails for good (polling refused, the token revoked).
    let fail: (error: Error) => void = () => {};
    const failed = new Promise<Error>((resolve) => {
      fail = resolve;
    });
    // Plain Error: only wraps a thrown non-Error so it can be reported; it is not an error of its own.
    const watch = (part: IntakeHandle) =>
      part.done?.catch((error: unknown) => fail(error instanceof Error ? error : new Error(String(error))));
    // Only the dispatcher polls (one scheduler for every call), from the marker the last poller committed.
    let switching = Promise.resolve();
    const switchPolling = (role: Role): Promise<void> => {
      switching = switching
        .catch(() => {})
        .then(async () => {
          if (role.dispatcher && !poller && engine) {
            poller = await parts.startPolling({
              api: spacedPolls(throttled, () => scheduler!.metrics().queued.total),
              conversationKey: config.conversationKey,
              onAccepted: accepted,
              logger: intakeLogger,
              timeoutSeconds: config.polling.timeoutSeconds,
              limit: config.polling.limit,
              ...(config.polling.updateTypes ? { types: config.polling.updateTypes } : {}),
              store: await database!.pollingStore(),
            });
            watch(poller);
          } else if (!role.dispatcher && poller) {
            const stopping = poller;
            poller = undefined;
            await stopping.stop();
          }
        });
      return switching;
    };
    if (polling) {
      onRole = (role) => {
        switchPolling(role).catch((error: unknown) =>
          logger.error({ err: error }, 'polling could not start or stop'),
        );
      };
    }

    const waiting = await store.pendingCount('all');
    if (waiting >= PROGRESS_THRESHOLD) {
      stopProgress = trackProgress({
        label: 'processing events left from the last run',
        startLeft: waiting,
        remaining: () => (running.alive() ? store.pendingCount('all') : 0),
        logger,
      });
    }
    await running.start();
    // The first poller is up before start returns (its marker handshake: updates after it are never skipped).
    if (polling) await switchPolling(running.role());
    pruning = startPruning(running, logger.child({ component: 'pruner' }));

    if (config.flows.watch && parts.watchFlows) {
      const shown = sandbox;
      watcher = parts.watchFlows(
        config.flows.dir,
        (next) => reloadFlows(running, next, flowLogger, shown),
        flowLogger,
      );
    }

    // External events (issue 29): the engine's sender (names and payloads checked, accepted rows recorded)
    // for the endpoint and the playground.
    const events = running.events;
    sandbox?.attachEvents?.(events);
    const endpoint = configuredEndpoint(
      config,
      events,
      config.token?.reveal() ?? sandbox?.token,
      intakeLogger,
    );
    // Webhook mode serves it on the receiver's port (mounted: the embedding app mounts `eventsEndpoint`).
    if (endpoint && polling) eventsServer = await startEventsServer(config, endpoint);

    if (!polling) {
      const { host, port, path, url, secret, updateTypes } = config.webhook;
      try {
        intake = await parts.startWebhook({
          api: throttled,
          conversationKey: config.conversationKey,
          onAccepted: accepted,
          logger: intakeLogger,
          ...intakeStore,
          host,
          port,
          path,
          url: url!,
          secret: secret!.reveal(),
          ...(updateTypes ? { types: updateTypes } : {}),
          ...(options.mountWebhook ? { mount: true } : {}),
          routes: (app, _options, done) => {
            app.register(healthRoutes(probe));
            if (endpoint && !options.mountWebhook) app.register(endpoint);
            done();
          },
        });
      } catch (error) {
        const where = `the webhook receiver cannot listen on ${host}:${port}`;
        throw describeListenError(error, where, 'webhook.port or BOTFLOW_WEBHOOK_PORT') ?? error;
      }
    }
    if (intake) watch(intake);

    let closing: Promise<{ clean: boolean; steps: StepOutcome[] }> | undefined;
    return {
      addresses: {
        api: baseUrl,
        ...(sandbox
          ? { sandbox: sandbox.baseUrl, webChat: sandbox.webChatUrl ?? `${sandbox.baseUrl}/` }
          : {}),
        ...(intake?.address ? { webhook: intake.address } : {}),
        ...(health ? { health: health.address } : {}),
        ...(eventsServer
          ? { events: eventsServer.address }
          : endpoint && intake?.address
            ? { events: new URL(config.events.path, intake.address).toString() }
            : {}),
      },
      bot: check.bot,
      flowCount: loaded.flows.length,
      ...(sandbox?.shownToken ? { sandboxToken: sandbox.shownToken } : {}),
      engine: running,
      events: running.events,
      ...(endpoint && options.mountWebhook && !polling ? { eventsEndpoint: endpoint } : {}),
      failed,
      ...(intake?.plugin ? { webhook: intake.plugin } : {}),
      close(reason = 'close') {
        closing ??= (async () => {
          logger.info(
            { reason },
            database?.shared
              ? 'stopping: no new updates are accepted; handing over to the other processes'
              : 'stopping: no new updates are accepted; finishing the current steps',
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
    await runShutdown(shutdownSteps(), { deadline: Date.now() + 5000, logger });
    throw error;
  }
}

/**
 * Keeps the database from growing without end: settled inbox rows after intake's retention (72 h), finished
 * outbox, timer and task rows after the engine's (7 days), the funnel's step log after 90 days. Pending work
 * is never touched. Any process may run it.
 */
function startPruning(engine: Engine<boolean>, logger: Logger): ReturnType<typeof setInterval> {
  const prune = () => {
    Promise.resolve()
      .then(() => engine.prune())
      .then(
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
