/**
 * The engine's timers: the wake-up armed at the next due timer of the partitions this process handles, the
 * grace rule for timers that came due while nothing ran them, and the poll that looks for inbox rows
 * nobody told the engine about (and, now and then, outbox rows put back in line from outside).
 */
import type { Logger } from 'pino';
import type { EngineStore, Partitions } from '../store/ports/engine.ts';
import { andThen, type MaybePromise } from '../store/ports/index.ts';
import type { TimerGrace } from '../store/timer-service.ts';
import { applyGraceRule, fireAllDue, graceOf, type RunState } from './engine-parts.ts';
import type { Clock, TimerHandle } from './step/clock.ts';

/** What the timers need from the rest of the engine. */
export interface TimerOptions {
  store: EngineStore;
  clock: Clock;
  logger?: Logger | undefined;
  run: RunState;
  partitions(): Partitions;
  grace?: TimerGrace | undefined;
  /** How often a started engine polls (default 1000 ms). */
  pollIntervalMs?: number | undefined;
  /** There may be inbox rows to plan. */
  process(): void;
  /** Outbox rows may have been put back in line from outside. */
  pulse(): void;
}

/** The timer side of an engine. */
export interface EngineTimers {
  /** Arms the wake-up at the next due timer (after a batch found nothing to do). */
  arm(): void;
  /** Fires the due timers now and arms the next wake-up. */
  wake(): void;
  /** The first poll; each schedules the next. */
  poll(): void;
  /** Moves every timer due at `at` into the inbox; how many. */
  fireDue(at: number): MaybePromise<number>;
  /** The grace rule for overdue timers of `taken` partitions. */
  applyGrace(taken: Partitions, at: number): MaybePromise<void>;
  /** Timers the wake-up is moving into the inbox (`tick()` and `drain()` wait). */
  firing(): Promise<unknown>;
  /** Timers were moved from outside (support): fire what is due, arm again. */
  moved(): void;
  /** Clears the wake-up and the poll. */
  stop(): void;
}

/** The timers of an engine over `o.store`. */
export function engineTimers(o: TimerOptions): EngineTimers {
  const { store, clock, logger, run } = o;
  const grace = graceOf(o.grace);
  let timerWake: { at: number; handle: TimerHandle } | undefined;
  let pollHandle: TimerHandle | undefined;
  let timerSeq = 0;
  let polls = 0;
  let firing: Promise<unknown> = Promise.resolve();
  const fireDue = (at: number) => fireAllDue(store, o.partitions(), at);

  function arm(): void {
    if (!run.running) return;
    const seq = ++timerSeq;
    void Promise.resolve(
      andThen(store.nextTimerAt(o.partitions()), (next) => {
        if (seq !== timerSeq || !run.running) return;
        if (timerWake && timerWake.at === next) return;
        if (timerWake) clock.clearTimer(timerWake.handle);
        timerWake = undefined;
        if (next === undefined) return;
        timerWake = { at: next, handle: clock.setTimer(wake, next - clock.now()) };
      }),
    ).catch((error: unknown) => logger?.error({ err: error }, 'could not read the next timer'));
  }

  function wake(): void {
    timerWake = undefined;
    if (!run.running) return;
    const done = andThen(fireDue(clock.now()), (fired) => {
      if (fired > 0) o.process();
      arm();
    });
    firing = Promise.all([firing, Promise.resolve(done)]).catch((error: unknown) => {
      logger?.error({ err: error }, 'firing due timers failed; retrying shortly');
      clock.setTimer(wake, 500);
    });
  }

  const due = () => timerWake === undefined || timerWake.at <= clock.now();
  function poll(): void {
    if (!run.running) return;
    o.process();
    if (due()) wake();
    // Now and then, look for outbox rows put back in line from outside (botflow outbox retry).
    if (++polls % 10 === 0) o.pulse();
    pollHandle = clock.setTimer(poll, o.pollIntervalMs ?? 1000);
  }

  return {
    arm,
    wake,
    poll,
    fireDue,
    applyGrace: (taken, at) => applyGraceRule(store, taken, at, grace, logger),
    firing: () => firing,
    moved() {
      if (due()) wake();
      arm();
    },
    stop() {
      if (timerWake) clock.clearTimer(timerWake.handle);
      if (pollHandle !== undefined) clock.clearTimer(pollHandle);
      [timerWake, pollHandle] = [undefined, undefined];
    },
  };
}
