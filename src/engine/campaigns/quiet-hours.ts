/**
 * Quiet hours in a person's time zone: whether a moment falls inside them, and when they end. Pure; the
 * end is computed from the local time of day, so on a night the clocks change it can be an hour off: the
 * runner checks again at that time and waits once more if it is still quiet.
 */
import { wallClock } from '../step/wall-clock.ts';

/** Quiet from `from` to `to`, minutes of the local day (`from` > `to` spans midnight). */
export interface QuietHours {
  from: number;
  to: number;
}

/** Minutes and milliseconds into the local day of `timeZone` at `at`. */
export function localTimeOfDay(at: number, timeZone: string): { minute: number; ms: number } {
  const w = wallClock(at, timeZone);
  return { minute: w.hour * 60 + w.minute, ms: w.second * 1000 + (at % 1000) };
}

/** When the quiet hours around `at` end in `timeZone`, or undefined when `at` is not inside them. */
export function quietUntil(at: number, quiet: QuietHours, timeZone: string): number | undefined {
  if (quiet.from === quiet.to) return undefined;
  const { minute, ms } = localTimeOfDay(at, timeZone);
  const inside =
    quiet.from < quiet.to
      ? minute >= quiet.from && minute < quiet.to
      : minute >= quiet.from || minute < quiet.to;
  if (!inside) return undefined;
  const minutesLeft = (quiet.to - minute + 1440) % 1440;
  return at + minutesLeft * 60_000 - ms;
}
