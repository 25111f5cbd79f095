/** The flow's settings for handing a conversation to operators (the `handoff` step is kinds/handoff/). */
import { z } from 'zod';
import { wallClock } from '../engine/step/wall-clock.ts';
import { Duration, TimeZone } from './schema-parts.ts';

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const DayKey = z
  .string()
  .regex(
    /^(mon|tue|wed|thu|fri|sat|sun)(-(mon|tue|wed|thu|fri|sat|sun))?$/,
    'a day (mon) or a range of days (mon-fri)',
  );
const Span = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-4]):[0-5]\d$/, 'opening hours: "09:00-18:00"');

/** Where operators work and when: `handoff: { operators_chat, hours, timeout }` at the top of a flow. */
export const HandoffSettings = z
  .strictObject({
    operators_chat: z
      .number()
      .int()
      .describe("The operators' group chat (the bot is a member): requests, relayed messages and replies"),
    hours: z
      .strictObject({ tz: TimeZone.optional() })
      // Optional only so that the emitted type's index signature admits `tz?` (TS2411 in a user's type check
      // without skipLibCheck); a YAML value is never undefined.
      .catchall(z.union([Span, z.array(Span)]).optional())
      .superRefine((h, ctx) => {
        for (const key of Object.keys(h))
          if (key !== 'tz' && !DayKey.safeParse(key).success)
            ctx.addIssue({
              code: 'custom',
              message: `hours.${key}: a day (mon) or a range of days (mon-fri)`,
            });
      })
      .optional()
      .describe(
        'Opening hours: { tz: Europe/Paris, mon-fri: "09:00-18:00", sat: "10:00-14:00" }; always open without',
      ),
    timeout: Duration.optional().describe('How long a request waits for an operator by default (15m)'),
  })
  .describe('Handing conversations to people: the operators chat, opening hours, the default wait');
export type HandoffSettings = z.infer<typeof HandoffSettings>;

const DAY_INDEX: Record<string, number> = Object.fromEntries(DAYS.map((d, i) => [d, i]));

/** Whether `now` falls within `hours` (always true without hours). */
export function withinHours(hours: HandoffSettings['hours'], now: number): boolean {
  if (!hours) return true;
  const w = wallClock(now, hours.tz ?? 'UTC');
  const day = (w.weekday + 6) % 7; // DAYS start on Monday
  const minute = w.hour * 60 + w.minute;
  for (const [key, value] of Object.entries(hours)) {
    if (key === 'tz' || value === undefined) continue;
    const [from, to = from] = key.split('-').map((d) => DAY_INDEX[d]!);
    const inDays = from! <= to! ? day >= from! && day <= to! : day >= from! || day <= to!;
    if (!inDays) continue;
    for (const span of Array.isArray(value) ? value : [value]) {
      const [a, b] = span.split('-').map((t) => {
        const [h, m] = t.split(':').map(Number);
        return h! * 60 + m!;
      });
      if (minute >= a! && minute < b!) return true;
    }
  }
  return false;
}
