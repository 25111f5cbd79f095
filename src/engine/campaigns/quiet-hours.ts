/**
 * Quiet hours in a person's time zone: whether a moment falls inside them, and when they end. Pure; the
 * end is computed from the local time of day, so on a night the clocks change it can be an hour off: the
 * runner checks again at that time and waits once more if it is still quiet.
 */

/** Quiet from `from` to `to`, minutes of the local day (`from` > `to` spans midnight). */
export interface QuietHours {
  from: number;
  to: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** Minutes and milliseconds into the local day of `timeZone` at `at`. */
export function localTimeOfDay(at: number, timeZone: string): { minute: number; ms: number } {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(timeZone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(at)).map((p) => [p.type, p.value]));
  const minute = Number(parts.hour) * 60 + Number(parts.minute);
  return { minute, ms: Number(parts.second) * 1000 + (at % 1000) };
}

/** True for a known IANA time zone name. */
export function isTimeZone(name: string | null | undefined): name is string {
  if (!name) return false;
  try {
    localTimeOfDay(0, name);
    return true;
  } catch {
    return false;
  }
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
