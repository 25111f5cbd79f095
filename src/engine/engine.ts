/**
 * `createEngine`: the engine assembled. Events in the inbox (updates from intake, due timers, API results)
 * drive one XState machine per conversation; each step commits its snapshot, calls and timers in one
 * transaction; the dispatcher sends the calls through the scheduler and feeds results back.
 */
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import type { OperationName } from '../client/operations.ts';
import type { Job } from '../client/scheduler/types.ts';
import { type UploadClient, type UploadScheduler, uploadMedia } from '../client/upload.ts';
import { type CallGateway, type MediaUploader, OutboxDispatcher } from '../dispatch/dispatcher.ts';
import { TaskRunner } from '../dispatch/tasks/runner.ts';
import type { TaskDefinition } from '../dispatch/tasks/task.ts';
import { BotflowError } from '../errors/index.ts';
import { buttonSecret } from '../store/engine-settings.ts';
import { FlowVersionStore } from '../store/flow-versions.ts';
import { TaskStore } from '../store/tasks.ts';
import type { WriterThread } from './commit/writer-thread.ts';
import { type SessionInspector, sessionInspector } from './inspect.ts';
import { WriterPipeline } from './lane/pipeline.ts';
import { type EventOutcome, InboxProcessor } from './lane/processor.ts';
import { SessionCache } from './lane/session-cache.ts';
import { type EngineEvents, EngineListeners } from './listeners.ts';
import { recordFlowVersions } from './pinned-versions.ts';
import { ButtonSigner } from './step/buttons.ts';
import { type Clock, clockFrom, systemClock, type TimerHandle } from './step/clock.ts';
import type { FlowDefinition } from './step/contract.ts';
import { FlowSet } from './step/flow-set.ts';
import { type GraceReport, type TimerGrace, TimerService } from './timers.ts';

/** The API client parts the engine uses: calls (when no scheduler is given) and uploads. */
export type EngineApi = Partial<UploadClient> & {
  call(op: OperationName, args: Record<string, unknown>): Promise<unknown>;
};

/** How to build an engine. */
export interface EngineOptions {
  /** An open botflow database (`openDatabase`): migrations applied. */
  db: Database.Database;
  /** The Bot API client: calls go straight to it when no scheduler is given; uploads use it. */
  api?: EngineApi;
  /** The throttled scheduler every call goes through (recommended). */
  scheduler?: CallGateway & { run?: unknown };
  /** Overrides how `upload_and_send` effects upload their media (default: `uploadMedia` with `api`). */
  upload?: MediaUploader;
  /** The flows to run: a `FlowSet` (several versions per flow) or a list (later entries are newer). */
  flows: FlowSet | FlowDefinition[];
  /** Secret for signing button payloads; by default generated once and kept in the database. */
  secret?: string;
  /** Reads the time (ms); the testing tools pass a virtual clock. Ignored when `clock` is given. */
  now?: () => number;
  /** Time and waiting, replaceable as a whole. */
  clock?: Clock;
  logger?: Logger;
  /** What to do with timers that came due while the engine was not running. */
  timerGrace?: TimerGrace;
  /** The bot's username (`getMe`): in groups, `/start@other_bot` and `@other_bot /start` are not ours. */
  botUsername?: string;
  /** Answer to a press on a keyboard that no running step owns (default "This menu is no longer active."). */
  staleText?: string;
  /** Inbox events per transaction (default 256). */
  batchSize?: number;
  /**
   * Sessions kept in memory after this process wrote them (default 10,000; 0 turns the cache off). The
   * next event of a cached conversation skips reading and restoring its snapshot. Bounded: memory does
   * not grow with the number of conversations.
   */
  sessionCacheSize?: number;
  /**
   * A writer thread on the same database file (`startWriterThread`): a started engine plans the next
   * batch while the thread commits the previous one, using a second core. Without it, batches are
   * committed on `db`. `processPending()` and `tick()` still commit on `db`.
   */
  writer?: WriterThread;
  /** Calls handed to the scheduler at once (default 256). */
  maxInFlight?: number;
  /** How often a started engine looks for inbox rows nobody told it about (default 1000 ms). */
  pollIntervalMs?: number;
  /**
   * Rebuilds a flow version from the `source` stored with it (flow files: `rebuildFlow` of src/flows).
   * At creation, running sessions pinned to a version `flows` lacks are given that version back from
   * its stored source, so they go on after a restart with a changed flow file. Without it, or when a
   * source is missing or no longer builds, they are migrated if the latest version maps them, else warned about.
   */
  rebuildFlow?: (source: string) => FlowDefinition;
  /** The team's tasks flows start (`do: [{task: …}]`), by name: run by the engine's task runner. */
  tasks?: Readonly<Record<string, TaskDefinition>>;
  /** Tasks running at once (default 16); apart from the platform's request budget. */
  taskConcurrency?: number;
}

export type { EngineEvents } from './listeners.ts';

/** A running (or ready) engine. */
export interface Engine {
  /** Processes the inbox as events arrive, fires timers when due and sends the outbox. */
  start(): void;
  /** Stops processing and waits up to `waitMs` (a duration, default 10 s) for calls in flight. */
  stop(options?: { waitMs?: number }): Promise<void>;
  /** Tells a started engine that intake committed inbox rows. */
  notify(): void;
  /** Handles pending inbox events until none is left (tests, tools); returns what became of each. */
  processPending(): EventOutcome[];
  /** Fires the timers due at `now` (default: the clock's time), then handles pending events. Virtual clocks. */
  tick(now?: number): EventOutcome[];
  /** Resolves when the inbox is empty and no call is in flight (a started engine). */
  drain(): Promise<void>;
  /**
   * Deletes settled outbox rows, timers and tasks older than `olderThanMs` (default 7 days), and the funnel's
   * step log older than `stepLogOlderThanMs` (default 90 days), in small chunks. The inbox has its own
   * retention (intake's store); sessions are kept.
   */
  prune(
    olderThanMs?: number,
    stepLogOlderThanMs?: number,
  ): { outbox: number; timers: number; tasks: number; stepLog: number };
  /** Support: list, inspect and end sessions. */
  sessions: SessionInspector;
  /** The flows this engine runs, every version it was given (add one to hot-reload). */
  flows: FlowSet;
  /** Listens to engine events; returns a function that stops listening. */
  on<K extends keyof EngineEvents>(event: K, listener: (payload: EngineEvents[K]) => void): () => void;
}

/** How long the funnel's step log is kept (`botflow stats` looks back at most this far). */
export const STEP_LOG_KEPT_MS = 90 * 24 * 3_600_000;

/** Builds an engine over `options.db`. Nothing runs until `start()`, `processPending()` or `tick()`. */
export function createEngine(options: EngineOptions): Engine {
  const { db, logger } = options;
  const clock = options.clock ?? (options.now ? clockFrom(options.now) : systemClock);
  const flows = options.flows instanceof FlowSet ? options.flows : new FlowSet(options.flows);
  const signer = new ButtonSigner(options.secret ?? buttonSecret(db, clock.now()));
  const cache = new SessionCache(options.sessionCacheSize ?? 10_000);
  const processor = new InboxProcessor({
    cache,
    db,
    flows,
    signer,
    now: () => clock.now(),
    logger,
    staleText: options.staleText ?? 'This menu is no longer active.',
    botUsername: options.botUsername,
    batchSize: options.batchSize ?? 256,
  });
  const timers = new TimerService(db, options.timerGrace, logger);
  const events = new EngineListeners(logger);
  const emit = events.emit;

  const { gateway, upload } = callsOf(options);

  let running = false;
  let recovered = false;
  let processingQueued = false;
  let timerWake: { at: number; handle: TimerHandle } | undefined;
  let pollHandle: TimerHandle | undefined;

  const dispatcher = gateway
    ? new OutboxDispatcher({
        db,
        gateway,
        upload,
        now: () => clock.now(),
        logger,
        maxInFlight: options.maxInFlight ?? 256,
        onResult: () => scheduleProcessing(),
        onOutcome: (outcome) => emit('effect', outcome),
      })
    : undefined;

  const taskRunner = new TaskRunner({
    port: new TaskStore(db),
    tasks: options.tasks ?? {},
    clock,
    concurrency: options.taskConcurrency ?? 16,
    gateway,
    logger,
    onResult: () => scheduleProcessing(),
    onOutcome: (outcome) => emit('task', outcome),
  });

  let pipeline: WriterPipeline | undefined = options.writer
    ? new WriterPipeline({
        processor,
        writer: options.writer,
        now: () => clock.now(),
        logger,
        report,
        wake: (delayMs = 0) =>
          delayMs > 0 ? clock.setTimer(scheduleProcessing, delayMs) : scheduleProcessing(),
        lost: () => {
          pipeline = undefined;
          scheduleProcessing();
        },
      })
    : undefined;

  recordFlowVersions(db, flows, clock.now(), logger, options.rebuildFlow);
  const flowVersions = new FlowVersionStore(db);
  flows.onAdd((flow) => {
    if (db.open) flowVersions.record(flow.id, flow.version, clock.now(), flow.source);
  });

  function report(outcomes: EventOutcome[]): void {
    let calls = 0;
    let tasks = 0;
    for (const outcome of outcomes) {
      calls += outcome.calls;
      tasks += outcome.tasks ?? 0;
      emit(outcome.status === 'failed' ? 'error' : 'step', outcome);
    }
    if (calls > 0) dispatcher?.wake();
    if (tasks > 0) taskRunner.wake();
  }

  function processPending(): EventOutcome[] {
    if (pipeline && pipeline.inFlight > 0) {
      throw new BotflowError(
        'BOTFLOW_ENGINE_BUSY',
        'processPending() while the writer thread commits a batch of this started engine: await engine.drain() instead',
      );
    }
    const all: EventOutcome[] = [];
    for (;;) {
      const batch = processor.processBatch();
      if (batch.length === 0) break;
      report(batch);
      for (const outcome of batch) all.push(outcome);
    }
    if (running) armTimerWake();
    return all;
  }

  function recoverOnce(now: number): GraceReport | undefined {
    if (recovered) return undefined;
    recovered = true;
    return timers.recover(now);
  }

  function fireDueTimers(now: number): number {
    let fired = 0;
    for (;;) {
      const n = timers.fireDue(now);
      fired += n;
      if (n === 0) return fired;
    }
  }

  function scheduleProcessing(): void {
    if (!running || processingQueued) return;
    processingQueued = true;
    setImmediate(runProcessing);
  }

  function runProcessing(): void {
    processingQueued = false;
    if (!running) return;
    try {
      if (pipeline) {
        // One batch planned per turn of the event loop; the writer thread commits the one before.
        const pumped = pipeline.pump();
        if (pumped === 'sent') scheduleProcessing();
        else if (pumped === 'empty') armTimerWake();
        return;
      }
      const batch = processor.processBatch();
      report(batch);
      // Yield between batches so intake's webhook replies are never starved by a long backlog.
      if (batch.length > 0) scheduleProcessing();
      else armTimerWake();
    } catch (error) {
      logger?.error({ err: error }, 'inbox processing failed; retrying shortly');
      clock.setTimer(scheduleProcessing, 500);
    }
  }

  function armTimerWake(): void {
    if (!running) return;
    const next = timers.nextFireAt();
    if (timerWake && timerWake.at === next) return;
    if (timerWake) clock.clearTimer(timerWake.handle);
    timerWake = undefined;
    if (next === undefined) return;
    timerWake = { at: next, handle: clock.setTimer(onTimerWake, next - clock.now()) };
  }

  function onTimerWake(): void {
    timerWake = undefined;
    if (!running) return;
    try {
      if (fireDueTimers(clock.now()) > 0) scheduleProcessing();
    } catch (error) {
      logger?.error({ err: error }, 'firing due timers failed; retrying shortly');
    }
    armTimerWake();
  }

  let polls = 0;
  function poll(): void {
    if (!running) return;
    scheduleProcessing();
    onTimerWakeIfDue();
    // Now and then, look for outbox rows put back in line from outside (botflow outbox retry).
    if (++polls % 10 === 0) dispatcher?.wake();
    pollHandle = clock.setTimer(poll, options.pollIntervalMs ?? 1000);
  }

  function onTimerWakeIfDue(): void {
    const next = timers.nextFireAt();
    if (next !== undefined && next <= clock.now()) onTimerWake();
  }

  return {
    flows,
    sessions: sessionInspector(db, {
      now: () => clock.now(),
      onEnded: (key) => cache.delete(key),
      onRedriven: () => dispatcher?.wake(),
      onTimersMoved: () => {
        onTimerWakeIfDue();
        armTimerWake();
      },
      flow: (flowId) => flows.latest(flowId),
      onJumped: () => scheduleProcessing(),
      currentFlows: () => flows.current(),
      rebuildFlow: options.rebuildFlow,
    }),
    start() {
      if (running) return;
      running = true;
      recoverOnce(clock.now());
      dispatcher?.start();
      taskRunner.start();
      if (!dispatcher)
        logger?.warn('engine started without an api client or scheduler: calls stay in the outbox');
      onTimerWakeIfDue();
      armTimerWake();
      poll();
    },
    async stop(stopOptions = {}) {
      running = false;
      if (timerWake) clock.clearTimer(timerWake.handle);
      if (pollHandle !== undefined) clock.clearTimer(pollHandle);
      timerWake = undefined;
      pollHandle = undefined;
      await pipeline?.idle(); // batches handed to the writer thread finish (or fail) before the engine stops
      await Promise.all([
        dispatcher?.stop(stopOptions.waitMs ?? 10_000),
        taskRunner.stop(stopOptions.waitMs ?? 10_000),
      ]);
    },
    notify: scheduleProcessing,
    processPending,
    tick(now = clock.now()) {
      recoverOnce(now);
      fireDueTimers(now);
      taskRunner.wake(); // retries that came due on a virtual clock
      return processPending();
    },
    async drain() {
      for (;;) {
        if (pipeline && running) {
          while (pipeline.pump() === 'sent') {}
          await pipeline.idle();
        } else processPending();
        await dispatcher?.idle();
        await taskRunner.idle();
        await dispatcher?.idle(); // calls planned from task results that came in meanwhile
        const busy =
          (dispatcher?.inFlight ?? 0) > 0 || (pipeline?.inFlight ?? 0) > 0 || taskRunner.inFlight > 0;
        if (!busy && processor.inbox.pendingCount() === 0) return;
      }
    },
    prune(olderThanMs = 7 * 24 * 3_600_000, stepLogOlderThanMs = STEP_LOG_KEPT_MS) {
      const now = clock.now();
      return processor.applier.stores.prune(now - olderThanMs, now - stepLogOlderThanMs);
    },
    on: events.on,
  };
}

/** How the engine's calls reach the platform: the scheduler (or the bare client), and media uploads. */
export function callsOf(options: Pick<EngineOptions, 'api' | 'scheduler' | 'upload'>): {
  gateway?: CallGateway;
  upload?: MediaUploader;
} {
  const api = options.api;
  const gateway: CallGateway | undefined =
    options.scheduler ?? (api ? { submit: (job: Job) => api.call(job.op, job.args) } : undefined);
  const upload: MediaUploader | undefined =
    options.upload ??
    (api?.dispatcher !== undefined && api.uploadHeaders !== undefined
      ? (media) =>
          uploadMedia(api as UploadClient, media.type, media.source, {
            ...(options.scheduler?.run ? { scheduler: options.scheduler as UploadScheduler } : {}),
          }) as Promise<Record<string, unknown>>
      : undefined);
  return { ...(gateway ? { gateway } : {}), ...(upload ? { upload } : {}) };
}
