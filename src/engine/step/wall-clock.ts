/**
 * The wall clock of a place: the calendar day, weekday and time of day of an instant in an IANA time zone,
 * through Intl (no dependency, and the zone rules, daylight saving included, are the runtime's). The one
 * reading of local time: typed dates and times, campaigns' quiet hours and a handoff's opening hours.
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
  second: number;
}

/** One formatter per zone: making one costs far more than using it. */
const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, f);
  }
  return f;
}

/** True when `zone` is a time zone the runtime knows ("Europe/Moscow", "UTC"). */
export function isTimeZone(zone: string | null | undefined): zone is string {
  if (!zone) return false;
  try {
    formatOf(zone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock at instant `now` (ms) in `zone`; an unknown zone reads as UTC. */
export function wallClock(now: number, zone = 'UTC'): WallClock {
  const f = formatOf(isTimeZone(zone) ? zone : 'UTC');
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
    second: Number(parts.second),
  };
}

/** The ISO date `days` after the wall clock's day (calendar arithmetic: a DST change never shifts it). */
export function addDays(w: Pick<WallClock, 'year' | 'month' | 'day'>, days: number): string {
  return new Date(Date.UTC(w.year, w.month - 1, w.day + days)).toISOString().slice(0, 10);
}
