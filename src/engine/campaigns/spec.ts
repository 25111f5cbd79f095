/**
 * A campaign as written (a `campaigns/*.campaign.yaml` file or the API's object), validated with zod, and
 * turned into what the store and the runner take: the segment with durations in ms, the rate per second,
 * quiet hours in minutes of the day, the cap. docs/campaigns.md describes the format.
 */
import { z } from 'zod';
import { BotflowError } from '../../errors/index.ts';
import type { Segment } from '../../store/campaigns/types.ts';
import { durationMs } from '../step/durations.ts';
import { TAG_PATTERN } from '../step/tags.ts';

/** A campaign that cannot be used as given, or asked to do what its state does not allow. */
export class CampaignError extends BotflowError {
  override name = 'CampaignError';
}

/** The platform allows 30 requests a second for everything: a campaign never takes more than this. */
export const MAX_CAMPAIGN_RATE = 25;

const DURATION = /^(\d+(ms|s|m|h|d))+$/;
const Duration = z.string().regex(DURATION, 'a duration such as 30m, 12h or 7d');
const Tag = z.string().regex(TAG_PATTERN, 'a tag is 1 to 64 letters, digits, _ - . or :');
const Tags = z.array(Tag).min(1);
const Value = z.union([z.string(), z.number(), z.boolean()]);
const VarCondition = z.union([
  Value,
  z.null(),
  z
    .strictObject({
      gt: z.union([z.number(), z.string()]).optional(),
      lt: z.union([z.number(), z.string()]).optional(),
      in: z.array(Value).optional(),
    })
    .refine((c) => c.gt !== undefined || c.lt !== undefined || c.in !== undefined, 'give gt, lt or in'),
]);
const Clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time of day HH:MM, such as 21:00');

/** Who a campaign reaches. */
export const Where = z.strictObject({
  tags: z.strictObject({ all: Tags.optional(), any: Tags.optional(), none: Tags.optional() }).optional(),
  vars: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name: letters, digits and _'),
      VarCondition,
    )
    .optional(),
  locale: z.array(z.string().min(1)).min(1).optional(),
  active_within: Duration.optional().describe('Talked to the bot within this long (30d)'),
  inactive_for: Duration.optional().describe('Silent for at least this long (7d)'),
  flow: z
    .strictObject({
      id: z.string().min(1),
      finished: z.boolean().optional(),
      ended_at: z
        .string()
        .min(1)
        .optional()
        .describe('The step of the flow they were last at, without finishing'),
    })
    .optional(),
});

/** A campaign as written. */
export const CampaignSpec = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'a name: lower-case letters, digits, _ and -')
    .optional()
    .describe('Defaults to the file name'),
  flow: z.string().min(1).describe('The flow started for each person'),
  with: z.record(z.string(), z.unknown()).optional().describe('Variables the flow starts with'),
  segment: z.strictObject({ where: Where.default({}) }).default({ where: {} }),
  rate: z
    .string()
    .regex(/^\d+(\.\d+)?\/(s|min)$/, 'a rate such as 10/s or 300/min')
    .default('10/s'),
  quiet_hours: z.strictObject({ from: Clock, to: Clock }).optional(),
  time_zone: z.string().optional().describe("Whose quiet hours when the person's variable is not set"),
  time_zone_var: z.string().default('time_zone').describe("The person's variable holding their time zone"),
  cap: z
    .strictObject({ max: z.number().int().min(1), per: Duration })
    .optional()
    .describe('At most max campaign messages per person in any window of `per` (every campaign)'),
  start_at: z.string().datetime({ offset: true }).optional(),
  busy: Duration.default('30m').describe(
    'A dialog that moved this recently is under way: the person is skipped',
  ),
});
export type CampaignSpec = z.input<typeof CampaignSpec>;

/** A campaign ready to run. */
export interface Campaign {
  name: string;
  flow: string;
  with: Record<string, unknown>;
  segment: Segment;
  /** Releases per second. */
  rate: number;
  quiet?: { from: number; to: number; timeZone: string; timeZoneVar: string };
  cap?: { max: number; perMs: number };
  startAt?: number;
  busyMs: number;
}

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const minutes = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3));

/** Validates `spec` (the zod issues with their paths when invalid). */
export function parseCampaignSpec(
  spec: unknown,
): { ok: true; spec: z.output<typeof CampaignSpec> } | { ok: false; issues: z.ZodIssue[] } {
  const parsed = CampaignSpec.safeParse(spec);
  return parsed.success ? { ok: true, spec: parsed.data } : { ok: false, issues: parsed.error.issues };
}

/**
 * The campaign `spec` describes (named `fallbackName` when it has no name), checked against the rules zod
 * cannot see: a known time zone, a rate above zero. `defaultTimeZone`: the bot's.
 */
export function campaignOf(spec: unknown, fallbackName: string, defaultTimeZone = 'UTC'): Campaign {
  const parsed = parseCampaignSpec(spec);
  if (!parsed.ok) {
    const issue = parsed.issues[0]!;
    throw new CampaignError(
      'BOTFLOW_CAMPAIGN_INVALID',
      `${issue.path.join('.') || 'campaign'}: ${issue.message}`,
    );
  }
  const s = parsed.spec;
  const [count, per] = s.rate.split('/') as [string, 's' | 'min'];
  const rate = Math.min(MAX_CAMPAIGN_RATE, Number(count) / (per === 'min' ? 60 : 1));
  if (!(rate > 0)) throw new CampaignError('BOTFLOW_CAMPAIGN_INVALID', `rate: ${s.rate} sends nothing`);
  const timeZone = s.time_zone ?? defaultTimeZone;
  if (!validTimeZone(timeZone))
    throw new CampaignError(
      'BOTFLOW_CAMPAIGN_INVALID',
      `time_zone: "${timeZone}" is not a known time zone (Europe/Paris)`,
    );
  const w = s.segment.where;
  const segment: Segment = {
    ...(w.tags ? { tags: w.tags } : {}),
    ...(w.vars ? { vars: w.vars } : {}),
    ...(w.locale ? { locale: w.locale } : {}),
    ...(w.active_within ? { activeWithinMs: durationMs(w.active_within) } : {}),
    ...(w.inactive_for ? { inactiveForMs: durationMs(w.inactive_for) } : {}),
    ...(w.flow
      ? {
          flow: {
            id: w.flow.id,
            ...(w.flow.finished !== undefined ? { finished: w.flow.finished } : {}),
            ...(w.flow.ended_at !== undefined ? { endedAt: w.flow.ended_at } : {}),
          },
        }
      : {}),
  };
  return {
    name: s.name ?? fallbackName,
    flow: s.flow,
    with: s.with ?? {},
    segment,
    rate,
    ...(s.quiet_hours
      ? {
          quiet: {
            from: minutes(s.quiet_hours.from),
            to: minutes(s.quiet_hours.to),
            timeZone,
            timeZoneVar: s.time_zone_var,
          },
        }
      : {}),
    ...(s.cap ? { cap: { max: s.cap.max, perMs: durationMs(s.cap.per) } } : {}),
    ...(s.start_at ? { startAt: Date.parse(s.start_at) } : {}),
    busyMs: durationMs(s.busy),
  };
}
