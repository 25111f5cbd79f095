/**
 * The engine's side of a running bot: the scheduler every call goes through, the engine itself (with the
 * recorder, the group-rights watch and the playground attached), its health checks, the backlog's
 * progress at start, and pruning.
 */
import type { Logger } from 'pino';
import type { BotApi } from '../client/client.ts';
import { Scheduler } from '../client/scheduler/scheduler.ts';
import type { SharedBudget } from '../client/scheduler/shared-budget.ts';
import type { Engine } from '../engine/engine.ts';
import type { EngineStore } from '../store/ports/engine.ts';
import type { LoadedFlows, StartAppOptions } from './app-parts.ts';
import type { Listening, Started } from './app-shutdown.ts';
import type { AppStore } from './app-store.ts';
import type { Config } from './config.ts';
import { watchGroupRights } from './group-rights.ts';
import { type HealthProbe, startHealthServer } from './health.ts';
import { trackProgress } from './progress.ts';
import type { BotIdentity } from './self-check.ts';
import { describeListenError } from './startup-error.ts';

/** Requests per second the dispatcher leaves for every call made outside it, shared through the database (cluster-budget.ts). */
export const CLUSTER_RESERVE_PER_SECOND = 2;

const PROGRESS_THRESHOLD = 500;
const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * The scheduler every call goes through. Several processes: the dispatcher sends for all of them within the
 * bot's limit less a reserve; every call made outside it (self-check and subscription at start, tasks'
 * "typing…") takes a start in that reserve, shared through the database, so all of them together stay
 * within the bot's limit.
 */
export function appScheduler(
  config: Config,
  options: StartAppOptions,
  api: BotApi,
  database: AppStore,
  budget: SharedBudget | undefined,
): Scheduler {
  const reserve = database.shared ? CLUSTER_RESERVE_PER_SECOND : 0;
  return new Scheduler({
    api: options.recorder ? options.recorder.wrapApi(api) : api,
    limits: {
      global: Math.max(1, config.limits.requestsPerSecond - reserve),
      perChat: config.limits.perChatPerSecond,
    },
    // The previous process may have spent this second's budget just before it stopped.
    startPausedMs: 1_000,
    ...(budget ? { sharedBudget: budget } : {}),
    logger: options.logger.child({ component: 'scheduler' }),
  });
}

/** What the engine is made of. */
export interface EngineInputs {
  store: EngineStore;
  api: BotApi;
  scheduler: Scheduler;
  loaded: LoadedFlows;
  bot: BotIdentity;
}

/** The engine (set in `started` at once), with the recorder, the group-rights watch and the playground attached. */
export function appEngine(
  config: Config,
  options: StartAppOptions,
  started: Started,
  { store, api, scheduler, loaded, bot }: EngineInputs,
): Engine<boolean> {
  const { logger, recorder } = options;
  const running = options.parts.createEngine({
    store,
    api,
    scheduler,
    flows: loaded.flows,
    ...(config.buttonSecret ? { secret: config.buttonSecret.reveal() } : {}),
    logger: logger.child({ component: 'engine' }),
    taskConcurrency: config.tasks.concurrency,
    ...(bot.username ? { botUsername: bot.username } : {}),
    onRole: (role) => started.onRole(role),
    conversationKey: config.conversationKey,
    funnelSamples: config.funnel.samples,
  });
  started.engine = running;
  if (recorder) {
    running.on('task', (outcome) => options.recorder?.task(outcome));
    running.on('accepted', (row) => options.recorder?.event(row));
  }
  watchGroupRights(running, scheduler, logger.child({ component: 'engine' }));
  started.sandbox?.attachEngine?.(running, loaded);
  return running;
}

/** `/healthz` and `/readyz`: alive and ready as the engine is (not ready while draining), and its role. */
export function healthProbe(
  running: Engine<boolean>,
  started: Started,
  store: EngineStore,
  polling: boolean,
): HealthProbe {
  return {
    alive: () => running.alive(),
    ready: () => !started.draining && running.ready(),
    details: () => {
      const role = running.role();
      if (!started.database?.shared) return { database: store.kind };
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
}

/** The health checks' own listener (`health.port`), when one is configured. */
export async function startHealth(config: Config, probe: HealthProbe): Promise<Listening | undefined> {
  if (config.health.port === undefined) return undefined;
  return startHealthServer({ host: config.health.host, port: config.health.port, probe }).catch(
    (error: unknown) => {
      const where = `the health checks cannot listen on ${config.health.host}:${config.health.port}`;
      throw describeListenError(error, where, 'health.port or BOTFLOW_HEALTH_PORT') ?? error;
    },
  );
}

/** Logs the progress through a large backlog left from the last run; returns what stops logging it. */
export async function backlogProgress(
  store: EngineStore,
  running: Engine<boolean>,
  logger: Logger,
): Promise<(() => void) | undefined> {
  const waiting = await store.pendingCount('all');
  if (waiting < PROGRESS_THRESHOLD) return undefined;
  return trackProgress({
    label: 'processing events left from the last run',
    startLeft: waiting,
    remaining: () => (running.alive() ? store.pendingCount('all') : 0),
    logger,
  });
}

/**
 * Keeps the database from growing without end: settled inbox rows after intake's retention (72 h), finished
 * outbox, timer and task rows after the engine's (7 days), the funnel's step log after 90 days. Pending work
 * is never touched. Any process may run it.
 */
export function startPruning(engine: Engine<boolean>, logger: Logger): ReturnType<typeof setInterval> {
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
