/**
 * Time, as the engine sees it: reading the clock and waiting. Everything time-dependent in the engine
 * goes through a Clock, so the testing tools can drive it with a virtual clock and explicit ticks.
 */

/** A handle returned by `Clock.setTimer`. */
export type TimerHandle = unknown;

/** The engine's source of time and of waiting. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms` milliseconds (of this clock). */
  setTimer(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer set with `setTimer`. */
  clearTimer(handle: TimerHandle): void;
}

/** The wall clock; waiting uses Node's timers, unref'd so they never keep a process alive on their own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, Math.min(ms, 2_147_483_647)));
    handle.unref?.();
    return handle;
  },
  clearTimer(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/** A clock that reads time from `now` and waits with Node's timers (the engine's `now` option). */
export function clockFrom(now: () => number): Clock {
  return { ...systemClock, now };
}
