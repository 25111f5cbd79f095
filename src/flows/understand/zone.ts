/**
 * The person's wall clock: the calendar day, weekday and time of day of an instant in an IANA time zone,
 * through Intl (no dependency, and the zone rules — daylight saving included — are the runtime's).
 */

/** A local calendar day and time of day. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  /** 0 = Sunday … 6 = Saturday. */
  weekday: number;
  hour: number;
  minute: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** True when `zone` is a time zone the runtime knows ("Europe/Moscow", "UTC"). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The wall clock at instant `now` (ms) in `zone`; an unknown zone reads as UTC. */
export function wallClock(now: number, zone = 'UTC'): WallClock {
  const tz = isTimeZone(zone) ? zone : 'UTC';
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formats.set(tz, f);
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(now)).map((p) => [p.type, p.value]));
  const year = Number(parts.year);
  const month = Number(parts.month);
  const day = Number(parts.day);
  return {
    year,
    month,
    day,
    weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay(),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
  };
}

/** The ISO date `days` after the wall clock's day (calendar arithmetic: a DST change never shifts it). */
export function addDays(w: Pick<WallClock, 'year' | 'month' | 'day'>, days: number): string {
  return new Date(Date.UTC(w.year, w.month - 1, w.day + days)).toISOString().slice(0, 10);
}
