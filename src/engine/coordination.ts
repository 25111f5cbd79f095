/**
 * Leases and coordination among several processes on one database (a store with leases: PostgreSQL): the
 * lease tick that heartbeats, takes or gives partitions and the dispatcher role, and the LISTEN connection
 * that hears of new inbox and outbox rows. One process alone has no ownership: every partition, always the
 * dispatcher.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Dispatcher } from '../dispatch/dispatcher.ts';
import type { TaskRunner } from '../dispatch/tasks/runner.ts';
import type { EngineStore, Partitions } from '../store/ports/engine.ts';
import type { HandedSend, LeaseNews } from '../store/ports/leases.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import type { EngineOptions } from './engine-options.ts';
import type { RunState } from './engine-parts.ts';
import { Ownership } from './lane/ownership.ts';
import type { SessionCache } from './lane/session-cache.ts';
import { systemClock, type TimerHandle } from './step/clock.ts';
import type { EngineTimers } from './timers.ts';

/** A handover heard longer ago than this is stale: the role moved by lapse, or to another process. */
const HANDOVER_HEARD_MS = 3000;
/** How often a process looks for a dead member's leases (one whose session ended: a SIGKILL). */
const GONE_WATCH_MS = 200;

/** What coordination needs from the rest of the engine (read when used: the parts are built after it). */
export interface CoordinationOptions {
  store: EngineStore;
  member: string;
  options: Pick<EngineOptions<boolean>, 'leaseMs' | 'dispatcher' | 'tickMs' | 'onRole'>;
  logger?: Logger | undefined;
  run: RunState;
  /** The engine's clock (timers' grace is applied at its time). */
  now(): number;
  cache: SessionCache;
  dispatcher(): Dispatcher | undefined;
  runner(): TaskRunner;
  timers(): Pick<EngineTimers, 'arm' | 'applyGrace'>;
  /** There may be inbox rows to plan. */
  process(): void;
}

/** The lease side of an engine. */
export interface Coordination {
  readonly ownership: Ownership | undefined;
  /** The partitions this process handles now. */
  partitions(): Partitions;
  /** True while this process sends (one process: always). */
  leads(): boolean;
  /** The next lease tick runs at once (a batch's partition moved away). */
  soon(): void;
  /** Several processes: the first lease tick, before anything runs. */
  join(): Promise<void>;
  /** Several processes: the lease ticks and the LISTEN connection, once started. */
  begin(): void;
  /** Stops the lease ticks; waits for one under way. */
  halt(): Promise<void>;
  /** Gives the leases back and closes the LISTEN connection (after the workers stopped). */
  leave(was: boolean): Promise<void>;
  /** The lease renewals are recent (readiness). */
  fresh(): boolean;
}

/** Ownership and its ticks for an engine over `o.store` (none on a store without leases). */
export function coordination(o: CoordinationOptions): Coordination {
  const { store, logger } = o;
  const tickMs = o.options.tickMs ?? 1000;
  let listener: { close(): Promise<void>; session?: number } | undefined;
  const ownership = store.leases
    ? new Ownership({
        leases: store.leases,
        member: o.member,
        leaseMs: o.options.leaseMs ?? 3000,
        dispatcher: o.options.dispatcher ?? true,
        info: { host: hostname(), pid: process.pid },
        // The listening connection's session: the others see it end the moment this process dies.
        session: () => listener?.session,
        logger,
      })
    : undefined;
  const handover = handoverBox();
  const leaseTick = () => (ownership ? tickOnce(o, ownership, handover.take) : Promise.resolve());
  const ticks = tickChain(o, tickMs, ownership ? leaseTick : undefined);

  /** Another process left, released partitions or joined: tick now rather than at the next tick. */
  function heard(news: LeaseNews): void {
    if (news.member === o.member || !o.run.running || !ownership) return;
    if (news.kind === 'left' && news.handover?.sends) handover.put(news.handover.sends);
    ticks.now();
  }
  const watch = goneWatch(o, ticks.now);

  async function listen(): Promise<void> {
    if (!o.run.running || !store.listen) return;
    const hear = { inbox: o.process, outbox: () => o.dispatcher()?.wake(), leases: heard };
    const client = await store.listen(hear, () => {
      listener = undefined;
      if (o.run.running) setTimeout(() => void listen().catch(() => {}), 1000).unref();
    });
    if (client && !o.run.running) await client.close().catch(() => {});
    else listener = client;
  }

  return {
    ownership,
    partitions: () => (ownership ? ownership.role.partitions : 'all'),
    leads: () => !ownership || ownership.role.dispatcher,
    soon: () => ticks.soon(),
    async join() {
      if (!ownership) return;
      // Listening first: the partitions the others release for this process are heard of at once.
      await listen().catch(() => {});
      await ticks.first();
      o.runner().setPartitions(ownership.role.partitions);
    },
    begin() {
      ticks.schedule();
      watch.start();
      if (!listener) void listen().catch(() => {});
    },
    async halt() {
      watch.stop();
      await ticks.halt(); // a tick under way must not take leases or the dispatcher role back after we leave
    },
    async leave(was) {
      if (ownership && was) await giveLeasesBack(o, ownership);
      const client = listener;
      listener = undefined;
      await client?.close().catch(() => {});
    },
    fresh: () => !ownership || (ownership.role.lastTickAt > 0 && ticks.recent()),
  };
}

/**
 * The lease ticks: ONE chain of them (a tick heard during `join` and the one `begin` arms must not run side
 * by side, or `halt` would stop one of them and the other would tick after `leave`, heartbeating the process
 * back among the members for a lease time, with partitions nobody takes), none after `halt`.
 */
function tickChain(o: CoordinationOptions, tickMs: number, tick: (() => Promise<void>) | undefined) {
  let handle: TimerHandle | undefined;
  let leasing: Promise<void> | undefined; // the lease tick under way
  let nextAt = 0;
  let ticking = false;
  const clear = () => {
    if (handle !== undefined) systemClock.clearTimer(handle);
    handle = undefined;
  };
  function schedule(): void {
    clear();
    if (!o.run.running || !tick) return;
    // Leases live in the database's time: renewed on the wall clock whatever clock drives the flows.
    handle = systemClock.setTimer(
      () => {
        handle = undefined;
        if (!o.run.running) return;
        nextAt = wallNow() + tickMs;
        ticking = true;
        leasing = tick()
          .catch((error: unknown) =>
            o.logger?.error({ err: error }, 'lease renewal failed; trying again shortly'),
          )
          .finally(() => {
            ticking = false;
            schedule();
          });
      },
      Math.max(0, Math.min(tickMs, nextAt - wallNow())),
    );
  }
  return {
    schedule,
    /** Tick at once (the tick under way schedules the next one at once). */
    now(): void {
      nextAt = 0;
      if (!ticking) schedule();
    },
    /** The next tick comes at once. */
    soon(): void {
      nextAt = 0;
    },
    /** The tick at joining; news heard meanwhile makes `schedule` tick at once, not a tick beside it. */
    async first(): Promise<void> {
      ticking = true;
      try {
        await tick?.();
      } finally {
        ticking = false;
      }
    },
    async halt(): Promise<void> {
      clear();
      await leasing;
    },
    /** Ticks keep coming (readiness). */
    recent: () => wallNow() - nextAt < 3 * tickMs,
  };
}

/**
 * Looks every GONE_WATCH_MS for a member that died moments ago (its session ended) and still holds leases:
 * `found` then ticks at once, so a SIGKILLed process's partitions and dispatcher role move within a fraction
 * of a second instead of a lease time.
 */
function goneWatch(o: CoordinationOptions, found: () => void): { start(): void; stop(): void } {
  const leases = o.store.leases;
  let handle: TimerHandle | undefined;
  const arm = (): void => {
    if (!o.run.running || !leases?.goneHolding) return;
    handle = systemClock.setTimer(() => {
      handle = undefined;
      if (!o.run.running) return;
      void leases.goneHolding!(o.member)
        .then(
          (gone) => {
            if (gone && o.run.running) found();
          },
          () => {},
        )
        .finally(() => {
          if (handle === undefined) arm();
        });
    }, GONE_WATCH_MS);
  };
  return {
    start() {
      if (handle === undefined) arm();
    },
    stop() {
      if (handle !== undefined) systemClock.clearTimer(handle);
      handle = undefined;
    },
  };
}

/** The last dispatcher's handover (its last second of calls), heard when it left cleanly: taken once, while fresh. */
function handoverBox(): { put(sends: HandedSend[]): void; take(): HandedSend[] | undefined } {
  let handedOver: { sends: HandedSend[]; at: number } | undefined;
  return {
    put(sends) {
      handedOver = { sends, at: wallNow() };
    },
    take() {
      const given = handedOver;
      handedOver = undefined;
      if (!given || wallNow() - given.at > HANDOVER_HEARD_MS) return undefined;
      const elapsed = wallNow() - given.at;
      return given.sends.map((s) => ({ ...s, agoMs: s.agoMs + elapsed }));
    },
  };
}

/** A clean stop: no role any more; the dispatcher hands its last second of calls over with its leases. */
async function giveLeasesBack(o: CoordinationOptions, ownership: Ownership): Promise<void> {
  o.options.onRole?.({ ...ownership.role, partitions: [], dispatcher: false });
  // The next dispatcher counts these calls instead of pausing.
  const sends = ownership.role.dispatcher ? o.dispatcher()?.recentCalls() : undefined;
  await ownership.leave(sends ? { sends } : undefined).catch((error: unknown) => {
    o.logger?.warn({ err: error }, 'could not give the leases back; they lapse on their own');
  });
}

/** Several processes: heartbeat, take or give partitions and the dispatcher role. */
async function tickOnce(
  o: CoordinationOptions,
  ownership: Ownership,
  handover: () => HandedSend[] | undefined,
): Promise<void> {
  const before = ownership.role;
  const { role, gained, lost, fromDead } = await ownership.tick();
  const dispatcher = o.dispatcher();
  // Sessions cached from an earlier time of ownership may have moved on under another process.
  if (gained.length > 0) o.cache.clear();
  if (gained.length + lost.length > 0) o.runner().setPartitions(role.partitions);
  if (gained.length > 0) {
    await Promise.resolve(o.timers().applyGrace(gained, o.now())).catch((error: unknown) => {
      o.logger?.warn(
        { err: error },
        'could not apply the grace rule to overdue timers; they fire as they are',
      );
    });
    o.timers().arm();
    o.process();
  }
  // Handed over by a clean stop, or taken from a process dead for seconds: no blind pause.
  if (role.dispatcher && !before.dispatcher) dispatcher?.lead(handover(), fromDead);
  else if (role.dispatcher) dispatcher?.lead();
  else dispatcher?.follow();
  // Every tick too: a notification lost with the LISTEN connection delays a call by a tick at most.
  if (role.dispatcher) dispatcher?.wake();
  if (gained.length + lost.length > 0 || role.dispatcher !== before.dispatcher) o.options.onRole?.(role);
}
