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
 * The parts, each in its module: leases and coordination (coordination.ts), the batch loop
 * (processing.ts), the dispatcher and task runner (workers.ts), timers (timers.ts), campaigns
 * (campaigns/loop.ts), listeners (listeners.ts); start, stop, tick and drain (lifecycle.ts).
 *
 *   const engine = createEngine({ db: openDatabase({ path }), flows, scheduler, api });
 *   const engine = createEngine({ store: postgresStore(await openPostgres({ url })), flows, scheduler, api });
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { EngineStore } from '../store/ports/engine.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import { campaignLoop } from './campaigns/loop.ts';
import { coordination } from './coordination.ts';
import type { Engine, EngineOptions } from './engine-options.ts';
import { callsOf, pruneStore, type RunState, soleRole, storeOf } from './engine-parts.ts';
import { engineEvents } from './events.ts';
import { sessionInspector } from './inspect.ts';
import { SessionCache } from './lane/session-cache.ts';
import { lifecycle } from './lifecycle.ts';
import { EngineListeners } from './listeners.ts';
import { batchProcessing } from './processing.ts';
import { clockFrom, systemClock } from './step/clock.ts';
import { FlowSet } from './step/flow-set.ts';
import { engineTimers } from './timers.ts';
import { outcomeReporter, workersFor } from './workers.ts';

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
  const run: RunState = { running: false, joined: false, graced: false, lastLoopAt: 0 };
  // The parts call each other only once the engine runs, so each may name one built after it.
  const coord = coordination({
    ...{ store, member, options, logger, run, now, cache },
    dispatcher: () => dispatcher,
    runner: () => runner,
    timers: () => timers,
    process: () => processing.schedule(),
  });
  const { gateway, upload } = callsOf(options);
  const { dispatcher, runner } = workersFor(store, {
    ...{ member, clock, gateway, upload, logger },
    maxInFlight: options.maxInFlight ?? 256,
    tasks: options.tasks ?? {},
    taskConcurrency: options.taskConcurrency ?? 16,
    onResult: () => processing.schedule(),
    onOutcome: (outcome) => events.emit('effect', outcome),
    onTask: (outcome) => events.emit('task', outcome),
  });
  const processing = batchProcessing({
    ...{ store, flows, cache, member, clock, logger, options, run },
    partitions: coord.partitions,
    report: outcomeReporter({ store, events, dispatcher, runner, leads: coord.leads }),
    empty: () => timers.arm(),
    leaseLost: coord.soon,
  });
  const timers = engineTimers({
    ...{ store, clock, logger, run, grace: options.timerGrace, pollIntervalMs: options.pollIntervalMs },
    partitions: coord.partitions,
    process: processing.schedule,
    pulse: () => dispatcher?.wake(),
  });
  const campaigns = campaignLoop({
    ...{ store, clock, flows, logger, intervalMs: options.campaignIntervalMs, timeZone: options.timeZone },
    leads: coord.leads,
    released: processing.schedule,
  });
  const sessions = sessionInspector(store.support, {
    now,
    onEnded: (key) => cache.delete(key),
    onRedriven: () => dispatcher?.wake(),
    onTimersMoved: timers.moved,
    flow: (flowId) => flows.latest(flowId),
    onJumped: processing.schedule,
    currentFlows: () => flows.current(),
    rebuildFlow: options.rebuildFlow,
  });
  const life = lifecycle({
    ...{ store, clock, logger, run, coordination: coord, processing, timers, dispatcher, runner, campaigns },
  });
  const sole = soleRole(member);
  return {
    ...{ member, store, flows, sessions, campaigns: campaigns.api },
    events: engineEvents({
      store,
      flows,
      now,
      strategy: options.conversationKey,
      events,
      wake: processing.schedule,
    }),
    ...life,
    notify: processing.schedule,
    busy: () =>
      (dispatcher?.inFlight ?? 0) > 0 ||
      processing.loop.inFlight > 0 ||
      runner.inFlight > 0 ||
      store.applying > 0,
    prune: (olderThanMs, stepLogOlderThanMs) =>
      pruneStore(store, clock.now(), olderThanMs, stepLogOlderThanMs),
    stepLog: (query) => store.stepLog(query),
    role: () =>
      coord.ownership ? coord.ownership.role : { ...sole, lastTickAt: run.joined ? run.lastLoopAt : 0 },
    ready: () => run.running && coord.fresh(),
    alive: () => run.running && wallNow() - run.lastLoopAt < 10_000 + (options.pollIntervalMs ?? 1000),
    on: events.on,
  };
}
