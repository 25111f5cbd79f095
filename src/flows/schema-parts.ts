/**
 * The building blocks of the flow file format (schema.ts): ids, texts, durations, variables to set and
 * conditions.
 */
import { z } from 'zod';
import { TagCall } from './tags.ts';

export const Id = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'ids are letters, digits and _, starting with a letter')
  .max(64);
/** A text: literal text with {{variables}}, or a message id when the flow has an `i18n` block. */
export const Text = z
  .string()
  .min(1)
  .describe('Literal text with {{variables}}, or a message id when the flow uses i18n');
/** Other words a typed answer may use for an option or a menu button: one list, or one per locale. */
export const Aliases = z
  .union([z.array(z.string().min(1)), z.record(z.string(), z.array(z.string().min(1)))])
  .describe(
    'Words a typed answer may use for it besides its label: [..], or per locale { en: [..], ru: [..] }',
  );
export type Aliases = z.infer<typeof Aliases>;
/** The zone dates and times in words are read in. */
export const TimeZone = z
  .string()
  .min(1)
  .describe(
    'The IANA time zone dates and times in words are read in ("Europe/Moscow", or "{{tz}}"); default: the variable time_zone, else UTC',
  );
export const Duration = z
  .string()
  .regex(/^(\d+(ms|s|m|h|d))+$/, 'a duration like 90s, 15m, 1h30m or 2d')
  .describe('A duration: 90s, 15m, 1h30m, 2d');
export const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const Vars = z
  .record(z.string(), Scalar)
  .describe(
    'Variables to set in the conversation context; a text starting with = is computed: "= party * 2"',
  );

/** A condition in the small declarative language: comparisons, all/any/not, named guards. */
export interface Condition {
  var?: string;
  eq?: z.infer<typeof Scalar>;
  ne?: z.infer<typeof Scalar>;
  lt?: number | string;
  le?: number | string;
  gt?: number | string;
  ge?: number | string;
  in?: z.infer<typeof Scalar>[];
  matches?: string;
  exists?: boolean;
  all?: Condition[];
  any?: Condition[];
  not?: Condition;
  guard?: string;
  params?: Record<string, unknown>;
  expr?: string;
}
export const Condition: z.ZodType<Condition> = z
  .strictObject({
    var: z.string().optional().describe('The variable to compare (dots reach into objects: contact.phone)'),
    eq: Scalar.optional(),
    ne: Scalar.optional(),
    lt: z.union([z.number(), z.string()]).optional(),
    le: z.union([z.number(), z.string()]).optional(),
    gt: z.union([z.number(), z.string()]).optional(),
    ge: z.union([z.number(), z.string()]).optional(),
    in: z.array(Scalar).optional(),
    matches: z.string().optional().describe('A regular expression the value must match'),
    exists: z.boolean().optional(),
    get all() {
      return z.array(Condition).optional();
    },
    get any() {
      return z.array(Condition).optional();
    },
    get not() {
      return Condition.optional();
    },
    guard: z.string().optional().describe('A guard registered in TypeScript'),
    params: z.record(z.string(), z.unknown()).optional(),
    expr: z
      .string()
      .optional()
      .describe('An expression over the variables that must be true: "party >= 6 and len(name) > 1"'),
  })
  .describe(
    '{var: age, lt: 18} | {all: [...]} | {any: [...]} | {not: {...}} | {guard: name, params} | {expr: "..."}',
  );

export const EffectCall = z.strictObject({
  effect: z.string().describe('An effect registered in TypeScript'),
  params: z.record(z.string(), z.unknown()).optional(),
});

/** What happens on a button, a command, a timer or an exhausted input: say, set, do, then go somewhere. */
export const RouteShape = {
  say: Text.optional(),
  set: Vars.optional(),
  do: z.array(z.union([EffectCall, TagCall])).optional(),
  goto: Id.optional().describe('The step to go to; without goto (and without call) the step stays'),
  call: Id.optional().describe('Run another flow, then come back to this step'),
  come_back: z
    .literal(true)
    .optional()
    .describe('With goto: after the step gone to takes its answer, return here (edit from a summary)'),
};
export const Route = z.strictObject(RouteShape);
export type Route = z.infer<typeof Route>;

export const Migration = z.strictObject({
  from: z
    .array(z.union([z.number(), z.string()]))
    .min(1)
    .describe('Versions this block upgrades: human version numbers, hash prefixes, or "any"'),
  steps: z.record(z.string(), Id).optional().describe('Old step id → new step id'),
  context: z
    .strictObject({
      rename: z.record(z.string(), z.string()).optional(),
      drop: z.array(z.string()).optional(),
      set: Vars.optional(),
    })
    .optional(),
  otherwise: Id.optional().describe('Where sessions in a removed step go (else they stay on their version)'),
});
export type Migration = z.infer<typeof Migration>;

export const Rule = z.strictObject({
  rule: z
    .string()
    .describe('length | range | regex | one_of | integer | a validator registered in TypeScript'),
  error: Text.optional(),
  min: z
    .union([z.number(), z.string()])
    .optional()
    .describe('For range: a number, a string, or a date (2026-01-31, today, +30d, -1y)'),
  max: z.union([z.number(), z.string()]).optional(),
  pattern: z.string().optional(),
  values: z.array(Scalar).optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});
export type Rule = z.infer<typeof Rule>;
