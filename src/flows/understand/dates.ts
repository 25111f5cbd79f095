/**
 * Dates and times in words, for `date` and `time` inputs: "tomorrow", "next friday", "in 3 days", "7pm",
 * "7:30 am", "noon", "tomorrow 7pm"; "завтра", "в пятницу", "через 3 дня", "в 19:00", "7 вечера",
 * "завтра в 19:00"; and the numeric forms (2026-03-31, 31.03.2026, 31/03/2026, 18:30, 18.30, 18h30).
 * Pure functions of (text, now, time zone): `now` is the event's clock, so transcripts stay stable, and the
 * day is the person's day in their zone. Words of every shipped language are read whatever the locale.
 */
import { addDays, type WallClock, wallClock } from '../../engine/step/wall-clock.ts';

/** What a date or time is read against. */
export interface WhenContext {
  /** The event's time (ms since the epoch). */
  now: number;
  /** The person's IANA time zone (default UTC). */
  timeZone?: string;
}

/** Lower case, NFKC, ё→е, "a.m." → "am", commas to spaces; keeps `:` `.` `/` `-` inside numbers. */
function tidy(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/ё/g, 'е')
    .replace(/\b([ap])\.\s?m\.?(?=\s|$)/g, '$1m')
    .replace(/[,!?;]+/g, ' ')
    .replace(/\.(?=\s|$)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const WEEKDAYS: [number, string[]][] = [
  [0, ['sunday', 'sun', 'воскресенье', 'вс']],
  [1, ['monday', 'mon', 'понедельник', 'пн']],
  [2, ['tuesday', 'tue', 'tues', 'вторник', 'вт']],
  [3, ['wednesday', 'wed', 'среда', 'среду', 'ср']],
  [4, ['thursday', 'thu', 'thur', 'thurs', 'четверг', 'чт']],
  [5, ['friday', 'fri', 'пятница', 'пятницу', 'пт']],
  [6, ['saturday', 'sat', 'суббота', 'субботу', 'сб']],
];
const WEEKDAY_OF = new Map(WEEKDAYS.flatMap(([n, ws]) => ws.map((w) => [w, n] as const)));

const SMALL: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  один: 1,
  одну: 1,
  два: 2,
  две: 2,
  три: 3,
  четыре: 4,
  пять: 5,
  шесть: 6,
  семь: 7,
  восемь: 8,
  девять: 9,
  десять: 10,
};
const count = (word: string | undefined): number | undefined =>
  word === undefined ? 1 : /^\d{1,3}$/.test(word) ? Number(word) : SMALL[word];

const DAY_WORDS: Record<string, number> = {
  today: 0,
  tonight: 0,
  tomorrow: 1,
  tmrw: 1,
  tmr: 1,
  tomorow: 1,
  yesterday: -1,
  'day after tomorrow': 2,
  'the day after tomorrow': 2,
  сегодня: 0,
  завтра: 1,
  послезавтра: 2,
  вчера: -1,
};

/** Days from `w`'s day to the weekday `target`: 0–6, or 1–7 when `strictlyAfter` ("next friday"). */
function daysTo(w: WallClock, target: number, strictlyAfter: boolean): number {
  const d = (target - w.weekday + 7) % 7;
  return strictlyAfter && d === 0 ? 7 : d;
}

function isoDate(y: number, mo: number, d: number): string | undefined {
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d)
    return undefined;
  return date.toISOString().slice(0, 10);
}

/** A date and nothing else ("tomorrow", "next friday", "через 3 дня", "31.03.2026"), as an ISO date. */
function dateOnly(t: string, w: WallClock): string | undefined {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(t);
  if (iso) return isoDate(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const dmy = /^(\d{1,2})[./](\d{1,2})[./](\d{4})$/.exec(t);
  if (dmy) return isoDate(Number(dmy[3]), Number(dmy[2]), Number(dmy[1]));
  if (t in DAY_WORDS) return addDays(w, DAY_WORDS[t]!);
  // +30d, -1w, today+2w, +1m, +1y: relative to the person's day (as `range` bounds are written).
  const rel = /^(?:today ?)?([+-]) ?(\d{1,4}) ?([dwmy])$/.exec(t);
  if (rel) {
    const n = Number(rel[2]) * (rel[1] === '-' ? -1 : 1);
    const unit = rel[3]!;
    if (unit === 'd' || unit === 'w') return addDays(w, unit === 'd' ? n : 7 * n);
    const shifted = new Date(
      Date.UTC(w.year + (unit === 'y' ? n : 0), w.month - 1 + (unit === 'm' ? n : 0), w.day),
    );
    return shifted.toISOString().slice(0, 10);
  }
  // "friday", "on friday", "this friday", "в пятницу", "в эту пятницу": today or the next one.
  const wd = /^(?:(on|this|coming|в|во|в эту|в этот|в это) )?(\p{L}+)$/u.exec(t);
  if (wd && WEEKDAY_OF.has(wd[2]!)) return addDays(w, daysTo(w, WEEKDAY_OF.get(wd[2]!)!, false));
  // "next friday", "friday next week", "в следующую пятницу": the first one after today.
  const next =
    /^(?:on )?next (\p{L}+)$/u.exec(t) ??
    /^(\p{L}+) next week$/u.exec(t) ??
    /^(?:в|во) следующ(?:ий|ую|ее|ая) (\p{L}+)$/u.exec(t);
  if (next && WEEKDAY_OF.has(next[1]!)) return addDays(w, daysTo(w, WEEKDAY_OF.get(next[1]!)!, true));
  // "in 3 days", "in a week", "через 3 дня", "через неделю".
  const inEn = /^in (\S+) (day|days|week|weeks)$/.exec(t);
  const inRu = /^через(?: (\S+))? (день|дня|дней|неделю|недели|недель)$/.exec(t);
  const n = inEn ? count(inEn[1]) : inRu ? count(inRu[1]) : undefined;
  if (n !== undefined) {
    const unit = (inEn ?? inRu)![2]!;
    return addDays(w, /^(week|недел)/.test(unit) ? 7 * n : n);
  }
  return undefined;
}

const hhmm = (h: number, m: number) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;

/** Hour `h` with a part of the day ("pm", "вечера") on a 24-hour clock, or undefined when it cannot be. */
function hourOf(h: number, part: string | undefined): number | undefined {
  if (part === undefined) return h <= 23 ? h : undefined;
  if (part === 'am' || part === 'pm') {
    if (h < 1 || h > 12) return undefined;
    return (h % 12) + (part === 'pm' ? 12 : 0);
  }
  if (part === 'утра') return h >= 1 && h <= 11 ? h : undefined;
  if (part === 'дня') return h === 12 ? 12 : h >= 1 && h <= 5 ? h + 12 : undefined;
  if (part === 'вечера') return h >= 4 && h <= 11 ? h + 12 : undefined;
  if (part === 'ночи') return h === 12 ? 0 : h >= 1 && h <= 4 ? h : undefined;
  return undefined;
}

/** A time of day and nothing else ("7pm", "at 19:00", "в 7 вечера", "noon", "in 2 hours"), as HH:MM. */
function timeOnly(t: string, at: WhenContext): string | undefined {
  const s = t.replace(/^(?:at|around|about|в|во|к|около) /, '');
  if (/^(?:noon|midday|полдень|12 дня)$/.test(s)) return '12:00';
  if (/^(?:midnight|полночь|12 ночи)$/.test(s)) return '00:00';
  const m =
    /^(\d{1,2})(?:[:.h](\d{2}))? ?(am|pm|утра|дня|вечера|ночи)$/.exec(s) ??
    /^(\d{1,2})(?:[:.h](\d{2}))? ?(?:час|часа|часов) (утра|дня|вечера|ночи)$/.exec(s) ??
    /^(\d{1,2})[:.h](\d{2})()$/.exec(s);
  if (m) {
    const h = hourOf(Number(m[1]), m[3] || undefined);
    const min = m[2] === undefined ? 0 : Number(m[2]);
    return h === undefined || min > 59 ? undefined : hhmm(h, min);
  }
  // "in 2 hours", "in an hour", "in 30 minutes", "через 2 часа", "через час", "через полчаса", "через 15 минут".
  const inEn = /^in (\S+) (hour|hours|minute|minutes|min|mins)$/.exec(t);
  const inRu = /^через(?: (\S+))? (час|часа|часов|минуту|минуты|минут)$/.exec(t);
  const half = t === 'через полчаса' || t === 'in half an hour';
  const n = half ? 30 : inEn ? count(inEn[1]) : inRu ? count(inRu[1]) : undefined;
  if (n === undefined) return undefined;
  const unit = half ? 'minute' : (inEn ?? inRu)![2]!;
  // The wall clock that much later: across a daylight saving change, "in 2 hours" is two real hours.
  const later = wallClock(at.now + (/^(hour|час)/.test(unit) ? 60 * n : n) * 60_000, at.timeZone);
  return hhmm(later.hour, later.minute);
}

/** Splits "tomorrow at 7pm" / "7pm tomorrow" / "завтра в 19:00" into a date part and a time part. */
function both(t: string, w: WallClock, at: WhenContext): { date: string; time: string } | undefined {
  const words = t.split(' ');
  for (let k = 1; k < words.length; k++) {
    const left = words.slice(0, k).join(' ');
    const right = words.slice(k).join(' ');
    const d1 = dateOnly(left, w);
    const t1 = d1 && timeOnly(right, at);
    if (d1 && t1) return { date: d1, time: t1 };
    const d2 = dateOnly(right, w);
    const t2 = d2 && timeOnly(left, at);
    if (d2 && t2) return { date: d2, time: t2 };
  }
  return undefined;
}

/** The ISO date a typed answer names (its date part when it also names a time), in the person's zone. */
export function readDate(text: string, at: WhenContext): string | undefined {
  const t = tidy(text);
  if (!t || t.length > 80) return undefined;
  const w = wallClock(at.now, at.timeZone);
  return dateOnly(t, w) ?? both(t, w, at)?.date;
}

/** The time of day (HH:MM) a typed answer names (its time part when it also names a date). */
export function readTime(text: string, at: WhenContext): string | undefined {
  const t = tidy(text);
  if (!t || t.length > 80) return undefined;
  const w = wallClock(at.now, at.timeZone);
  return timeOnly(t, at) ?? both(t, w, at)?.time;
}

/** The ISO date a relative expression of a flow file (`today`, `+30d`) names on the person's day. */
export function relativeDay(text: string, at: WhenContext): string | undefined {
  const t = tidy(text);
  return /^(?:today|tomorrow|yesterday|(?:today ?)?[+-] ?\d{1,4} ?[dwmy])$/.test(t)
    ? dateOnly(t, wallClock(at.now, at.timeZone))
    : undefined;
}
