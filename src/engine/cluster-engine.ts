/**
 * `createClusterEngine`: the engine of one process among several on one PostgreSQL database. The same
 * planning and steps as `createEngine`; what changes is where events come from and how they are committed:
 *
 * - the process handles the conversations of the partitions it owns (lane/ownership.ts: leases with
 *   heartbeats, rendezvous hashing, takeover of a dead process's partitions within the lease time);
 * - it reads a batch of their pending events and their sessions (one query each), plans the batch as the
 *   single-process engine does, and commits it in ONE transaction through `botflow_apply_batch`, which
 *   checks the partitions' leases in the same transaction (a process that lost one writes nothing);
 * - it fires the due timers of its partitions (a timer fires once, from its partition's owner);
 * - one process, the holder of the `dispatcher` lease, sends the outbox of all of them, so the platform
 *   never sees more than the bot's limits.
 *
 *   const pg = await openPostgres({ url });
 *   const engine = createClusterEngine({ pg, flows, scheduler, api });
 *   await engine.start();
 *   …
 *   await engine.stop();
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { CallGateway, MediaUploader } from '../dispatch/send.ts';
import { SharedDispatcher } from '../dispatch/shared-dispatcher.ts';
import { TaskRunner } from '../dispatch/tasks/runner.ts';
import type { TaskDefinition } from '../dispatch/tasks/task.ts';
import { DEFAULT_INBOX_RETENTION_MS } from '../inbox/pruner.ts';
import { applyBatch, LeaseLostError } from '../store/postgres/commit.ts';
import { type PostgresDatabase, pgListen } from '../store/postgres/database.ts';
import { INBOX_CHANNEL, PgInbox } from '../store/postgres/inbox.ts';
import { PgLeases } from '../store/postgres/leases.ts';
import { notifyOutbox, OUTBOX_CHANNEL, PgOutbox } from '../store/postgres/outbox.ts';
import { pgPrune } from '../store/postgres/prune.ts';
import { pgSessions, pgStepLog } from '../store/postgres/sessions.ts';
import { pgButtonSecret, pgFlowSources, pgRecordFlowVersion } from '../store/postgres/settings.ts';
import { PgTasks } from '../store/postgres/tasks.ts';
import { applyTimerGrace, fireDueTimers } from '../store/postgres/timers.ts';
import type { SessionRow } from '../store/sessions.ts';
import type { StepLogRow } from '../store/step-log.ts';
import { callsOf, type EngineApi, STEP_LOG_KEPT_MS } from './engine.ts';
import { Ownership, type Role } from './lane/ownership.ts';
import { BatchPlanner, type EventOutcome, writesOf } from './lane/processor.ts';
import { SessionCache } from './lane/session-cache.ts';
import { type EngineEvents, EngineListeners } from './listeners.ts';
import { versionRestorer } from './pinned-versions.ts';
import { ButtonSigner } from './step/buttons.ts';
import { clockFrom } from './step/clock.ts';
import type { FlowDefinition } from './step/contract.ts';
import { FlowSet } from './step/flow-set.ts';
import type { TimerGrace } from './timers.ts';

/** How to build a cluster engine. */
export interface ClusterEngineOptions {
  /** The shared database (`openPostgres`): migrations applied. */
  pg: PostgresDatabase;
  /** The flows to run (every process of the bot runs the same flow files). */
  flows: FlowSet | FlowDefinition[];
  /** The throttled scheduler (recommended) or the bare client. */
  scheduler?: CallGateway & { run?: unknown };
  api?: EngineApi;
  upload?: MediaUploader;
  /** Button-signing secret; by default created once in the database and shared by every process. */
  secret?: string;
  logger?: Logger;
  botUsername?: string;
  staleText?: string;
  /** Events per transaction (default 256). */
  batchSize?: number;
  /** Sessions kept in memory (default 10,000). */
  sessionCacheSize?: number;
  /** Calls handed to the scheduler at once while this process is the dispatcher (default 256). */
  maxInFlight?: number;
  /** This process's name among the others (default host:pid:random). */
  member?: string;
  /** Heartbeat and lease renewal (default 1000 ms). */
  tickMs?: number;
  /** Lease time (default 3000 ms): a dead process's partitions and dispatcher role move after it. */
  leaseMs?: number;
  /** The team's tasks, by name: each runs in the process owning its conversation's partition. */
  tasks?: Readonly<Record<string, TaskDefinition>>;
  /** Tasks running at once in this process (default 16). */
  taskConcurrency?: number;
  /**
   * Rebuilds a flow version from its stored source (flow files: `rebuildFlow` of src/flows): a session
   * pinned to a version this process did not load (an older one, or a newer one during a rolling deploy)
   * gets it back the first time this process meets it.
   */
  rebuildFlow?: (source: string) => FlowDefinition;
  /** The grace rule for timers that came due while no process ran (applied to partitions a process takes). */
  timerGrace?: TimerGrace;
  /** Take part in the dispatcher election (default true). */
  dispatcher?: boolean;
  /** Hears every tick's role (after it changed): start or stop polling, report. */
  onRole?: (role: Role) => void;
}

/** A process's engine among several. */
export interface ClusterEngine {
  /** This process's member id. */
  readonly member: string;
  /** The flows it runs (add a version to hot-reload). */
  flows: FlowSet;
  /** Joins the others: takes its share of partitions, maybe the dispatcher role, and starts processing. */
  start(): Promise<void>;
  /** Stops processing, gives its leases back (the others take over at once) and waits for calls in flight. */
  stop(options?: { waitMs?: number }): Promise<void>;
  /** Intake committed events: look now. */
  notify(): void;
  /** What this process holds now. */
  role(): Role;
  /** True once it has joined and its last tick is recent (readiness). */
  ready(): boolean;
  /** True while its loop runs (liveness). */
  alive(): boolean;
  /** Resolves when no event waits in this process's partitions and no call is in flight here. */
  drain(): Promise<void>;
  on<K extends keyof EngineEvents>(event: K, listener: (payload: EngineEvents[K]) => void): () => void;
  /** The funnel's step log of a flow (or all) since `since`, a page at a time (runtime/funnel.ts tallies it). */
  stepLog(query?: { flowId?: string; since?: number }): AsyncIterable<StepLogRow>;
  /**
   * Deletes settled inbox rows after 72 h, finished outbox rows, timers and tasks after `olderThanMs`
   * (7 days) and the step log after `stepLogOlderThanMs` (90 days). Any process may run it.
   */
  prune(olderThanMs?: number, stepLogOlderThanMs?: number): Promise<Record<string, number>>;
}

/** Builds a cluster engine; nothing runs until `start()`. */
export function createClusterEngine(options: ClusterEngineOptions): ClusterEngine {
  const { pool } = options.pg;
  const logger = options.logger;
  const member = options.member ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const flows = options.flows instanceof FlowSet ? options.flows : new FlowSet(options.flows);
  const tickMs = options.tickMs ?? 1000;
  const inbox = new PgInbox(pool);
  const leases = new PgLeases(pool);
  const ownership = new Ownership({
    leases,
    member,
    leaseMs: options.leaseMs ?? 3000,
    dispatcher: options.dispatcher ?? true,
    info: { host: hostname(), pid: process.pid },
    logger,
  });
  const cache = new SessionCache(options.sessionCacheSize ?? 10_000);
  const events = new EngineListeners(logger);
  const now = () => Date.now();
  let loaded = new Map<string, SessionRow>();
  const restoreVersions = versionRestorer(
    (versions) => pgFlowSources(pool, versions),
    flows,
    logger,
    options.rebuildFlow,
  );
  let planner: BatchPlanner | undefined;

  const { gateway, upload } = callsOf(options);
  const dispatcher = gateway
    ? new SharedDispatcher({
        outbox: new PgOutbox(pool),
        member,
        gateway,
        upload,
        now,
        logger,
        maxInFlight: options.maxInFlight ?? 256,
        onOutcome: (outcome) => events.emit('effect', outcome),
      })
    : undefined;

  const taskRunner = new TaskRunner({
    port: new PgTasks(pool, member),
    partitions: [],
    pollMs: 500,
    tasks: options.tasks ?? {},
    clock: clockFrom(now),
    concurrency: options.taskConcurrency ?? 16,
    gateway,
    logger,
    onResult: () => wake(),
    onOutcome: (outcome) => events.emit('task', outcome),
  });

  let running = false;
  let looping: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let woken = false;
  let listener: { close(): Promise<void> } | undefined;
  let lastLoopAt = 0;
  let nextTickAt = 0;
  let nextTimersAt = 0;

  function wake(): void {
    woken = true;
    wakeUp?.();
  }

  function sleep(ms: number): Promise<void> {
    if (woken) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });
  }

  async function tick(): Promise<void> {
    const before = ownership.role;
    const { role, gained, lost } = await ownership.tick();
    // Sessions cached from an earlier time of ownership may have moved on under another process.
    if (gained.length > 0) cache.clear();
    if (gained.length + lost.length > 0) taskRunner.setPartitions(role.partitions);
    if (gained.length > 0) await graceFor(gained);
    if (dispatcher) {
      if (role.dispatcher) {
        dispatcher.lead();
        dispatcher.wake(); // every tick too: a notification lost with the LISTEN connection delays a call by a tick at most
      } else dispatcher.follow();
    }
    nextTickAt = Date.now() + tickMs;
    const changed = gained.length + lost.length > 0 || role.dispatcher !== before.dispatcher;
    if (changed) options.onRole?.(role);
  }

  /** One batch of the owned partitions' pending events; returns how many were read. */
  async function processBatch(partitions: number[]): Promise<number> {
    const rows = await inbox.pending(partitions, options.batchSize ?? 256);
    if (rows.length === 0) return 0;
    const keys = new Set<string>();
    for (const row of rows)
      if (row.conversationKey && !cache.get(row.conversationKey)) keys.add(row.conversationKey);
    loaded = await pgSessions(pool, [...keys]);
    await restoreVersions(loaded.values());
    const plans = planner!.plan(rows);
    loaded = new Map();
    let results: Awaited<ReturnType<typeof applyBatch>>;
    try {
      results = await applyBatch(pool, member, writesOf(plans), now());
    } catch (error) {
      planner!.forgetPlanned();
      if (error instanceof LeaseLostError) {
        logger?.warn('a partition of the batch moved to another process; nothing of it was written');
        nextTickAt = 0;
        return 0;
      }
      throw error;
    }
    const outcomes = planner!.settle(plans, results);
    report(outcomes);
    return rows.length;
  }

  /** Timers of partitions just taken that came due long ago (the whole bot was down): spread out or expired. */
  async function graceFor(partitions: number[]): Promise<void> {
    const grace = options.timerGrace ?? {};
    const report = await applyTimerGrace(pool, partitions, now(), {
      toleranceMs: grace.toleranceMs ?? 60_000,
      maxLateMs: grace.maxLateMs ?? 6 * 3_600_000,
      perSecond: Math.max(0.001, grace.perSecond ?? 10),
    }).catch((error: unknown) => {
      logger?.warn({ err: error }, 'could not apply the grace rule to overdue timers; they fire as they are');
      return { postponed: 0, expired: 0 };
    });
    if (report.postponed + report.expired > 0)
      logger?.info(report, 'timers that came due while no process ran them: spread out or expired');
  }

  function report(outcomes: EventOutcome[]): void {
    let calls = 0;
    let tasks = 0;
    for (const outcome of outcomes) {
      calls += outcome.calls;
      tasks += outcome.tasks ?? 0;
      events.emit(outcome.status === 'failed' ? 'error' : 'step', outcome);
    }
    if (tasks > 0) taskRunner.wake();
    if (calls === 0) return;
    if (dispatcher?.leading) dispatcher.wake();
    else void notifyOutbox(pool).catch(() => {});
  }

  async function loop(): Promise<void> {
    while (running) {
      lastLoopAt = Date.now();
      woken = false;
      try {
        if (Date.now() >= nextTickAt) await tick();
        const { partitions } = ownership.role;
        let worked = 0;
        if (partitions.length > 0 && Date.now() >= nextTimersAt) {
          worked += await fireDueTimers(pool, partitions, now());
          nextTimersAt = Date.now() + 200;
        }
        if (partitions.length > 0) worked += await processBatch(partitions);
        if (worked === 0 && running) await sleep(Math.max(0, Math.min(200, nextTickAt - Date.now())));
      } catch (error) {
        logger?.error({ err: error }, 'cluster engine: a round failed; trying again shortly');
        await sleep(500);
      }
    }
  }

  async function listen(): Promise<void> {
    if (!running) return;
    const heard = await pgListen(
      options.pg,
      [INBOX_CHANNEL, OUTBOX_CHANNEL],
      (channel) => {
        if (channel === INBOX_CHANNEL) wake();
        else if (channel === OUTBOX_CHANNEL) dispatcher?.wake();
      },
      () => {
        listener = undefined;
        if (running) setTimeout(() => void listen().catch(() => {}), 1000).unref();
      },
    );
    if (heard && !running) await heard.close().catch(() => {});
    else listener = heard;
  }

  return {
    member,
    flows,
    async start() {
      if (running) return;
      const secret = options.secret ?? (await pgButtonSecret(pool, now()));
      planner = new BatchPlanner({
        cache,
        load: (key) => loaded.get(key),
        flows,
        signer: new ButtonSigner(secret),
        now,
        logger,
        staleText: options.staleText ?? 'This menu is no longer active.',
        botUsername: options.botUsername,
      });
      for (const flow of flows.all())
        await pgRecordFlowVersion(pool, flow.id, flow.version, now(), flow.source);
      flows.onAdd((flow) => {
        void pgRecordFlowVersion(pool, flow.id, flow.version, now(), flow.source).catch(() => {});
      });
      running = true;
      taskRunner.start();
      await tick();
      taskRunner.setPartitions(ownership.role.partitions);
      void listen().catch(() => {});
      looping = loop();
      if (!gateway)
        logger?.warn('cluster engine started without an api client or scheduler: calls stay in the outbox');
    },
    async stop(stopOptions = {}) {
      if (!running) return;
      running = false;
      wake();
      await looping;
      dispatcher?.follow();
      await Promise.all([
        dispatcher?.stop(stopOptions.waitMs ?? 10_000),
        taskRunner.stop(stopOptions.waitMs ?? 10_000),
      ]);
      options.onRole?.({ ...ownership.role, partitions: [], dispatcher: false });
      await ownership.leave().catch((error: unknown) => {
        logger?.warn({ err: error }, 'could not give the leases back; they lapse on their own');
      });
      const client = listener;
      listener = undefined;
      await client?.close().catch(() => {});
    },
    notify: wake,
    stepLog: (query = {}) => pgStepLog(pool, query),
    prune(olderThanMs = 7 * 24 * 3_600_000, stepLogOlderThanMs = STEP_LOG_KEPT_MS) {
      const now = Date.now();
      return pgPrune(pool, {
        inbox: now - DEFAULT_INBOX_RETENTION_MS,
        settled: now - olderThanMs,
        stepLog: now - stepLogOlderThanMs,
      });
    },
    role: () => ownership.role,
    ready: () => running && ownership.role.lastTickAt > 0 && Date.now() - nextTickAt < 3 * tickMs,
    alive: () => running && Date.now() - lastLoopAt < 10_000,
    async drain() {
      for (;;) {
        const { partitions } = ownership.role;
        const waiting = partitions.length > 0 ? await inbox.pendingCount(partitions) : 0;
        await taskRunner.idle();
        await dispatcher?.idle();
        if (waiting === 0 && (dispatcher?.inFlight ?? 0) === 0 && taskRunner.inFlight === 0) return;
        wake();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    on: events.on,
  };
}
