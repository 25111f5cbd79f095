/**
 * `createEngine`: the engine assembled, the same over SQLite and PostgreSQL. Events in the inbox (updates
 * from intake, due timers, API and task results) drive one XState machine per conversation; each batch
 * commits its snapshots, calls and timers in one transaction; the dispatcher sends the calls through the
 * scheduler and feeds results back.
 *
 * One process owns every conversation and is always the dispatcher. When the store has leases
 * (PostgreSQL), several processes share the database: each handles the partitions it holds leases on
 * (lane/ownership.ts), and the holder of the `dispatcher` lease sends for all of them.
 *
 *   const engine = createEngine({ db: openDatabase({ path }), flows, scheduler, api });
 *   const engine = createEngine({ store: postgresStore(await openPostgres({ url })), flows, scheduler, api });
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isBotflowError } from '../errors/index.ts';
import type { EngineStore } from '../store/ports/engine.ts';
import { andThen, type MaybePromise } from '../store/ports/index.ts';
import { campaignLoop } from './campaigns/loop.ts';
import type { Answer, Engine, EngineOptions } from './engine-options.ts';
import {
  applyGraceRule,
  callsOf,
  fireAllDue,
  graceOf,
  pruneStore,
  soleRole,
  storeOf,
} from './engine-parts.ts';
import { engineEvents } from './events.ts';
import { sessionInspector } from './inspect.ts';
import { BatchLoop } from './lane/batches.ts';
import { Ownership } from './lane/ownership.ts';
import { BatchPlanner, type EventOutcome } from './lane/processor.ts';
import { SessionCache } from './lane/session-cache.ts';
import { EngineListeners } from './listeners.ts';
import { recordFlowVersions, versionRestorer } from './pinned-versions.ts';
import { ButtonSigner } from './step/buttons.ts';
import { clockFrom, systemClock, type TimerHandle } from './step/clock.ts';
import { FlowSet } from './step/flow-set.ts';
import { workersFor } from './workers.ts';

export type { Answer, Engine, EngineApi, EngineEvents, EngineOptions } from './engine-options.ts';
export { callsOf, STEP_LOG_KEPT_MS } from './engine-parts.ts';

/** Builds an engine. Nothing runs until `start()`, `processPending()` or `tick()`. */
export function createEngine(options: EngineOptions<true> & { store?: EngineStore<true> }): Engine<true>;
export function createEngine(options: EngineOptions<false> & { store: EngineStore<false> }): Engine<false>;
export function createEngine(options: EngineOptions<boolean> & { store: EngineStore }): Engine<boolean>;
export function createEngine(options: EngineOptions<boolean>): Engine<boolean> {
  const { logger } = options;
  const clock = options.clock ?? (options.now ? clockFrom(options.now) : systemClock);
  const now = () => clock.now();
  const store = storeOf(options, now);
  const flows = options.flows instanceof FlowSet ? options.flows : new FlowSet(options.flows);
  const member = options.member ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const cache = new SessionCache(options.sessionCacheSize ?? 10_000);
  const events = new EngineListeners(logger);
  const tickMs = options.tickMs ?? 1000;
  const ownership = store.leases
    ? new Ownership({
        leases: store.leases,
        member,
        leaseMs: options.leaseMs ?? 3000,
        dispatcher: options.dispatcher ?? true,
        info: { host: hostname(), pid: process.pid },
        logger,
      })
    : undefined;
  const partitions = () => (ownership ? ownership.role.partitions : 'all');
  const grace = graceOf(options.timerGrace);

  const restore = versionRestorer((v) => store.flowSources(v), flows, logger, options.rebuildFlow);
  let planner: BatchPlanner | undefined;
  const loop = new BatchLoop({
    store,
    get planner() {
      return planner!;
    },
    cache,
    member,
    partitions,
    now,
    batchSize: options.batchSize ?? 256,
    restore,
    logger,
    report,
    wake: (delayMs = 0) => (delayMs > 0 ? clock.setTimer(scheduleProcessing, delayMs) : scheduleProcessing()),
    empty: () => armTimerWake(),
    leaseLost(error) {
      if (!isBotflowError(error, 'BOTFLOW_LEASE_LOST')) return false;
      logger?.warn('a partition of the batch moved to another process; nothing of it was written');
      nextLeaseTickAt = 0;
      return true;
    },
  });

  const { gateway, upload } = callsOf(options);
  const { dispatcher, runner } = workersFor(store, {
    member,
    clock,
    gateway,
    upload,
    logger,
    maxInFlight: options.maxInFlight ?? 256,
    tasks: options.tasks ?? {},
    taskConcurrency: options.taskConcurrency ?? 16,
    onResult: () => scheduleProcessing(),
    onOutcome: (outcome) => events.emit('effect', outcome),
    onTask: (outcome) => events.emit('task', outcome),
  });

  const campaigns = campaignLoop({
    ...{ store, clock, flows, logger, intervalMs: options.campaignIntervalMs, timeZone: options.timeZone },
    leads: () => !ownership || ownership.role.dispatcher,
    released: () => scheduleProcessing(),
  });
  // Ready on a synchronous store at once; on PostgreSQL once `start()` has read the secret.
  const prepared: MaybePromise<void> = andThen(options.secret ?? store.buttonSecret(now()), (secret) =>
    andThen(recordFlowVersions(store, flows, now(), logger, options.rebuildFlow), () => {
      planner = new BatchPlanner({
        cache,
        load: (key) => loop.load(key),
        flows,
        signer: new ButtonSigner(secret),
        now,
        logger,
        staleText: options.staleText ?? 'This menu is no longer active.',
        ...{ botUsername: options.botUsername, funnelSamples: options.funnelSamples },
      });
    }),
  );
  if (prepared instanceof Promise) prepared.catch(() => {}); // whoever awaits it (start, tick) meets a failure
  flows.onAdd((flow) => {
    void Promise.resolve()
      .then(() => store.recordFlowVersion(flow.id, flow.version, now(), flow.source))
      .catch(() => {});
  });

  let running = false;
  let joined = false;
  let graced = false;
  let processingQueued = false;
  let timerWake: { at: number; handle: TimerHandle } | undefined;
  let pollHandle: TimerHandle | undefined;
  let leaseHandle: TimerHandle | undefined;
  let leasing: Promise<void> | undefined; // the lease tick under way
  let nextLeaseTickAt = 0;
  let lastLoopAt = 0;
  let listener: { close(): Promise<void> } | undefined;
  function report(outcomes: EventOutcome[]): void {
    let calls = 0;
    let tasks = 0;
    for (const outcome of outcomes) {
      calls += outcome.calls;
      tasks += outcome.tasks ?? 0;
      events.emit(outcome.status === 'failed' ? 'error' : 'step', outcome);
    }
    if (tasks > 0) runner.wake();
    if (calls === 0) return;
    if (!ownership || ownership.role.dispatcher) dispatcher?.wake();
    else void store.announceOutbox?.().catch(() => {});
  }

  function scheduleProcessing(): void {
    if (!running || processingQueued) return;
    processingQueued = true;
    setImmediate(() => {
      processingQueued = false;
      lastLoopAt = Date.now();
      if (running) loop.pump();
    });
  }

  const applyGrace = (taken: 'all' | number[], at: number) => applyGraceRule(store, taken, at, grace, logger);
  const fireDueTimers = (at: number) => fireAllDue(store, partitions(), at);

  let timerSeq = 0;
  function armTimerWake(): void {
    if (!running) return;
    const seq = ++timerSeq;
    void Promise.resolve(
      andThen(store.nextTimerAt(partitions()), (next) => {
        if (seq !== timerSeq || !running) return;
        if (timerWake && timerWake.at === next) return;
        if (timerWake) clock.clearTimer(timerWake.handle);
        timerWake = undefined;
        if (next === undefined) return;
        timerWake = { at: next, handle: clock.setTimer(onTimerWake, next - clock.now()) };
      }),
    ).catch((error: unknown) => logger?.error({ err: error }, 'could not read the next timer'));
  }

  let firing: Promise<unknown> = Promise.resolve(); // timers the wake-up fires: tick() and drain() wait
  function onTimerWake(): void {
    timerWake = undefined;
    if (!running) return;
    const done = andThen(fireDueTimers(clock.now()), (fired) => {
      if (fired > 0) scheduleProcessing();
      armTimerWake();
    });
    firing = Promise.all([firing, Promise.resolve(done)]).catch((error: unknown) => {
      logger?.error({ err: error }, 'firing due timers failed; retrying shortly');
      clock.setTimer(onTimerWake, 500);
    });
  }

  let polls = 0;
  function poll(): void {
    if (!running) return;
    scheduleProcessing();
    if (timerWake === undefined || timerWake.at <= clock.now()) onTimerWake();
    // Now and then, look for outbox rows put back in line from outside (botflow outbox retry).
    if (++polls % 10 === 0) dispatcher?.wake();
    pollHandle = clock.setTimer(poll, options.pollIntervalMs ?? 1000);
  }

  /** Several processes: heartbeat, take or give partitions and the dispatcher role. */
  async function leaseTick(): Promise<void> {
    if (!ownership) return;
    const before = ownership.role;
    const { role, gained, lost } = await ownership.tick();
    // Sessions cached from an earlier time of ownership may have moved on under another process.
    if (gained.length > 0) cache.clear();
    if (gained.length + lost.length > 0) runner.setPartitions(role.partitions);
    if (gained.length > 0) {
      await Promise.resolve(applyGrace(gained, now())).catch((error: unknown) => {
        logger?.warn(
          { err: error },
          'could not apply the grace rule to overdue timers; they fire as they are',
        );
      });
      armTimerWake();
      scheduleProcessing();
    }
    if (role.dispatcher) dispatcher?.lead();
    else dispatcher?.follow();
    // Every tick too: a notification lost with the LISTEN connection delays a call by a tick at most.
    if (role.dispatcher) dispatcher?.wake();
    if (gained.length + lost.length > 0 || role.dispatcher !== before.dispatcher) options.onRole?.(role);
  }

  function scheduleLeaseTick(): void {
    if (!running || !ownership) return;
    // Leases live in the database's time: renewed on the wall clock whatever clock drives the flows.
    leaseHandle = systemClock.setTimer(
      () => {
        nextLeaseTickAt = Date.now() + tickMs;
        leasing = leaseTick()
          .catch((error: unknown) =>
            logger?.error({ err: error }, 'lease renewal failed; trying again shortly'),
          )
          .finally(scheduleLeaseTick);
      },
      Math.max(0, Math.min(tickMs, nextLeaseTickAt - Date.now())),
    );
  }

  async function listen(): Promise<void> {
    if (!running || !store.listen) return;
    const heard = await store.listen({ inbox: scheduleProcessing, outbox: () => dispatcher?.wake() }, () => {
      listener = undefined;
      if (running) setTimeout(() => void listen().catch(() => {}), 1000).unref();
    });
    if (heard && !running) await heard.close().catch(() => {});
    else listener = heard;
  }

  function begin(): void {
    running = true;
    joined = true;
    lastLoopAt = Date.now();
    if (!ownership) dispatcher?.start(); // one process always sends; among several, the lease holder does
    runner.start();
    campaigns.start();
    if (!dispatcher)
      logger?.warn('engine started without an api client or scheduler: calls stay in the outbox');
    onTimerWake();
    poll();
  }

  const outside = engineEvents({
    store,
    flows,
    now,
    strategy: options.conversationKey,
    events,
    wake: scheduleProcessing,
  });
  const sole = soleRole(member);
  const engine: Engine<boolean> = {
    member,
    store,
    flows,
    events: outside,
    sessions: inspector(),
    campaigns: campaigns.api,
    start(): Answer<boolean, void> {
      if (running) return (store.synchronous ? undefined : Promise.resolve()) as Answer<boolean, void>;
      if (!ownership) {
        if (!graced) {
          graced = true;
          applyGrace('all', clock.now());
        }
        begin();
        return undefined as Answer<boolean, void>;
      }
      return (async () => {
        await prepared;
        running = true;
        await leaseTick();
        runner.setPartitions(ownership.role.partitions);
        begin();
        scheduleLeaseTick();
        void listen().catch(() => {});
      })() as Answer<boolean, void>;
    },
    async stop(stopOptions = {}) {
      const was = running;
      running = false;
      if (timerWake) clock.clearTimer(timerWake.handle);
      if (pollHandle !== undefined) clock.clearTimer(pollHandle);
      if (leaseHandle !== undefined) systemClock.clearTimer(leaseHandle);
      [timerWake, pollHandle, leaseHandle] = [undefined, undefined, undefined];
      await leasing; // a tick under way must not take leases or the dispatcher role back after we leave
      await campaigns.stop();
      await loop.idle(); // batches handed to the store finish (or fail) before the engine stops
      dispatcher?.follow();
      await Promise.all([
        dispatcher?.stop(stopOptions.waitMs ?? 10_000),
        runner.stop(stopOptions.waitMs ?? 10_000),
      ]);
      if (ownership && was) {
        options.onRole?.({ ...ownership.role, partitions: [], dispatcher: false });
        await ownership.leave().catch((error: unknown) => {
          logger?.warn({ err: error }, 'could not give the leases back; they lapse on their own');
        });
      }
      const client = listener;
      listener = undefined;
      await client?.close().catch(() => {});
    },
    notify: scheduleProcessing,
    processPending() {
      return andThen(prepared, () => loop.processPending()) as Answer<boolean, EventOutcome[]>;
    },
    tick(at = clock.now()) {
      return andThen(store.synchronous ? prepared : firing.then(() => prepared), () => {
        const first = graced || ownership ? undefined : applyGrace('all', at);
        graced = true;
        return andThen(first, () =>
          andThen(fireDueTimers(at), () => {
            runner.wake(); // retries that came due on a virtual clock, and campaigns' releases:
            return andThen(campaigns.round(at), () => loop.processPending());
          }),
        );
      }) as Answer<boolean, EventOutcome[]>;
    },
    async drain() {
      for (;;) {
        if (!store.synchronous) await firing; // PostgreSQL: timers the wake-up is moving in
        if (running) {
          loop.pump();
          await loop.idle();
        } else await engine.processPending();
        await dispatcher?.idle();
        await runner.idle();
        await dispatcher?.idle(); // calls planned from task results that came in meanwhile
        const busy = (dispatcher?.inFlight ?? 0) > 0 || loop.inFlight > 0 || runner.inFlight > 0;
        if (!busy && (await store.pendingCount(partitions())) === 0) return;
        if (running) await new Promise((resolve) => setTimeout(resolve, store.synchronous ? 0 : 20));
      }
    },
    prune: (olderThanMs, stepLogOlderThanMs) =>
      pruneStore(store, clock.now(), olderThanMs, stepLogOlderThanMs),
    stepLog: (query) => store.stepLog(query),
    role: () => (ownership ? ownership.role : { ...sole, lastTickAt: joined ? lastLoopAt : 0 }),
    ready: () =>
      running && (!ownership || (ownership.role.lastTickAt > 0 && Date.now() - nextLeaseTickAt < 3 * tickMs)),
    alive: () => running && Date.now() - lastLoopAt < 10_000 + (options.pollIntervalMs ?? 1000),
    on: events.on,
  };
  return engine;

  function inspector() {
    return sessionInspector(store.support, {
      now,
      onEnded: (key) => cache.delete(key),
      onRedriven: () => dispatcher?.wake(),
      onTimersMoved: () => {
        if (timerWake === undefined || timerWake.at <= clock.now()) onTimerWake();
        armTimerWake();
      },
      flow: (flowId) => flows.latest(flowId),
      onJumped: () => scheduleProcessing(),
      currentFlows: () => flows.current(),
      rebuildFlow: options.rebuildFlow,
    });
  }
}
