/**
 * Dates and times in words, on a fixed clock, in UTC and in a zone where the day is already another one,
 * and across daylight saving changes.
 */
import { describe, expect, it } from 'vitest';
import { isTimeZone, wallClock } from '../../src/engine/step/wall-clock.ts';
import { readDate, readTime, relativeDay } from '../../src/flows/understand/dates.ts';

// Monday 2026-01-05 21:30 UTC: still Monday in UTC, already Tuesday 00:30 in Moscow (UTC+3).
const now = Date.parse('2026-01-05T21:30:00Z');
const utc = { now };
const moscow = { now, timeZone: 'Europe/Moscow' };

describe('dates in words', () => {
  it.each([
    // [text, in UTC (Monday 5th), in Moscow (Tuesday 6th)]
    ['today', '2026-01-05', '2026-01-06'],
    ['Tomorrow', '2026-01-06', '2026-01-07'],
    ['tmrw', '2026-01-06', '2026-01-07'],
    ['day after tomorrow', '2026-01-07', '2026-01-08'],
    ['yesterday', '2026-01-04', '2026-01-05'],
    ['friday', '2026-01-09', '2026-01-09'],
    ['on Friday', '2026-01-09', '2026-01-09'],
    ['next friday', '2026-01-09', '2026-01-09'],
    ['monday', '2026-01-05', '2026-01-12'],
    ['next monday', '2026-01-12', '2026-01-12'],
    ['tuesday', '2026-01-06', '2026-01-06'],
    ['next tuesday', '2026-01-06', '2026-01-13'],
    ['in 3 days', '2026-01-08', '2026-01-09'],
    ['in three days', '2026-01-08', '2026-01-09'],
    ['in a week', '2026-01-12', '2026-01-13'],
    ['tomorrow 7pm', '2026-01-06', '2026-01-07'],
    ['7pm tomorrow', '2026-01-06', '2026-01-07'],
    ['tomorrow at 7:30 am', '2026-01-06', '2026-01-07'],
    ['сегодня', '2026-01-05', '2026-01-06'],
    ['Завтра', '2026-01-06', '2026-01-07'],
    ['послезавтра', '2026-01-07', '2026-01-08'],
    ['в пятницу', '2026-01-09', '2026-01-09'],
    ['в понедельник', '2026-01-05', '2026-01-12'],
    ['в следующую пятницу', '2026-01-09', '2026-01-09'],
    ['во вторник', '2026-01-06', '2026-01-06'],
    ['через 3 дня', '2026-01-08', '2026-01-09'],
    ['через день', '2026-01-06', '2026-01-07'],
    ['через неделю', '2026-01-12', '2026-01-13'],
    ['через две недели', '2026-01-19', '2026-01-20'],
    ['завтра в 19:00', '2026-01-06', '2026-01-07'],
    ['в пятницу в 7 вечера', '2026-01-09', '2026-01-09'],
    ['+3d', '2026-01-08', '2026-01-09'],
    // The numeric forms do not depend on the clock.
    ['2026-03-31', '2026-03-31', '2026-03-31'],
    ['31.03.2026', '2026-03-31', '2026-03-31'],
    ['31/03/2026', '2026-03-31', '2026-03-31'],
  ])('"%s" → %s in UTC, %s in Moscow', (text, inUtc, inMoscow) => {
    expect(readDate(text, utc)).toBe(inUtc);
    expect(readDate(text, moscow)).toBe(inMoscow);
  });

  it('what is no date', () => {
    for (const text of [
      'someday',
      'next year',
      '2026-02-30',
      '31.02.2026',
      'in many days',
      'через',
      '7pm',
      '',
    ])
      expect(readDate(text, utc), text).toBeUndefined();
  });
});

describe('times in words', () => {
  it.each([
    ['7pm', '19:00'],
    ['7 PM', '19:00'],
    ['7 p.m.', '19:00'],
    ['19:00', '19:00'],
    ['at 19:00', '19:00'],
    ['7:30 am', '07:30'],
    ['9.15', '09:15'],
    ['18h30', '18:30'],
    ['12am', '00:00'],
    ['12pm', '12:00'],
    ['noon', '12:00'],
    ['midnight', '00:00'],
    ['tomorrow 7pm', '19:00'],
    ['в 19:00', '19:00'],
    ['7 вечера', '19:00'],
    ['в 7 вечера', '19:00'],
    ['в 8 утра', '08:00'],
    ['в 3 часа дня', '15:00'],
    ['в 2 ночи', '02:00'],
    ['в полдень', '12:00'],
    ['полночь', '00:00'],
    ['завтра в 19:00', '19:00'],
  ])('"%s" → %s', (text, time) => {
    expect(readTime(text, utc)).toBe(time);
    expect(readTime(text, moscow)).toBe(time);
  });

  it('relative times are on the person’s clock: "in 2 hours", "через час"', () => {
    expect(readTime('in 2 hours', utc)).toBe('23:30');
    expect(readTime('in 2 hours', moscow)).toBe('02:30');
    expect(readTime('через час', moscow)).toBe('01:30');
    expect(readTime('через полчаса', moscow)).toBe('01:00');
    expect(readTime('in 15 minutes', utc)).toBe('21:45');
  });

  it('what is no time', () => {
    for (const text of ['13pm', '0am', '25:00', '19:75', '7', 'в 7 утра вечера', 'tomorrow', 'soon'])
      expect(readTime(text, utc), text).toBeUndefined();
  });
});

describe('daylight saving', () => {
  it('spring forward (Berlin, 2026-03-29 02:00 → 03:00): "in 2 hours" from 00:30 is 03:30, the day is the local one', () => {
    const at = { now: Date.parse('2026-03-28T23:30:00Z'), timeZone: 'Europe/Berlin' };
    expect(wallClock(at.now, at.timeZone)).toMatchObject({ day: 29, hour: 0, minute: 30, weekday: 0 });
    expect(readTime('in 2 hours', at)).toBe('03:30');
    expect(readDate('today', at)).toBe('2026-03-29');
    expect(readDate('tomorrow', at)).toBe('2026-03-30');
    expect(readDate('in a week', at)).toBe('2026-04-05');
    expect(readDate('today', { now: at.now })).toBe('2026-03-28'); // still Saturday in UTC
  });

  it('fall back (New York, 2026-11-01 02:00 → 01:00): "in 3 hours" from 23:30 is 01:30, the clock repeats', () => {
    const at = { now: Date.parse('2026-11-01T03:30:00Z'), timeZone: 'America/New_York' };
    expect(readDate('today', at)).toBe('2026-10-31');
    expect(readTime('in 3 hours', at)).toBe('01:30');
    expect(readDate('tomorrow', at)).toBe('2026-11-01');
    expect(readDate('next sunday', at)).toBe('2026-11-01');
  });
});

describe('zones and relative bounds', () => {
  it('an unknown zone reads as UTC; the flow file’s relative dates use the person’s day', () => {
    expect(isTimeZone('Europe/Moscow')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(readDate('today', { now, timeZone: 'Mars/Olympus' })).toBe('2026-01-05');
    expect(relativeDay('today', moscow)).toBe('2026-01-06');
    expect(relativeDay('+90d', utc)).toBe('2026-04-05');
    expect(relativeDay('friday', utc)).toBeUndefined(); // a bound is written today, +30d, …
  });
});
