/**
 * The flow format's intents (schema.ts): `understand:` on a menu or input step, or for the whole flow,
 * maps free text to an intent and slots through a classifier; `intents:` lists the keywords of the built-in
 * `keywords` classifier. The classifier's fixed input and result shapes live here too.
 */
import { z } from 'zod';
import { Duration, Id } from './schema-parts.ts';

/** The classifier built into botflow: keywords and patterns, no service, synchronous and deterministic. */
export const KEYWORDS_CLASSIFIER = 'keywords';
/** The confidence below which a classification is unclear (the person is asked), unless `threshold:` says. */
export const DEFAULT_THRESHOLD = 0.6;

/** What every classifier is given: the text, the locale, the intents the step accepts, the variables. */
export const ClassifierInput = z.object({
  text: z.string(),
  locale: z.string(),
  intents: z.array(z.string()),
  vars: z.record(z.string(), z.unknown()),
});
export type ClassifierInput = z.infer<typeof ClassifierInput>;
/** What every classifier answers: the intent (null: none), its confidence (0..1), the slots it read. */
export const ClassifierResult = z.object({
  intent: z.string().nullable(),
  confidence: z.number().min(0).max(1),
  slots: z.record(z.string(), z.unknown()).optional(),
});
export type ClassifierResult = z.infer<typeof ClassifierResult>;

/** A route schema (schema.ts's `Route`), given to avoid a cycle of imports. */
type RouteSchema = z.ZodObject<z.ZodRawShape>;

/** The `understand:` block, built over the format's route. */
export function understandSchema<R extends RouteSchema>(route: R) {
  return z
    .strictObject({
      classifier: z
        .string()
        .min(1)
        .optional()
        .describe('A task of the registry with the classifier shape, or "keywords" (the default, built in)'),
      threshold: z
        .number()
        .min(0)
        .max(1)
        .optional()
        .describe('Below this confidence the person is asked to clarify (default 0.6)'),
      timeout: Duration.optional().describe('A registered classifier: per attempt (default 30s)'),
      intents: z
        .record(
          Id,
          route.extend({
            save_slots: z.boolean().optional().describe('Save the slots read as variables of the same name'),
          }),
        )
        .describe('Intent → route: { book: { goto: ask_day, save_slots: true } }'),
      unclear: route.optional().describe('An intent below the threshold: ask (without goto the step stays)'),
      unknown: route.optional().describe('Text with no intent (default: the step as without understand)'),
    })
    .describe('Free text routed by intent (text a button, an option or an answer took never gets here)');
}

/** Keywords of one intent: one list for every locale, or one per language. Words, phrases or /regex/. */
export const IntentKeywords = z
  .record(
    Id,
    z.union([z.array(z.string().min(1)).min(1), z.record(z.string(), z.array(z.string().min(1)).min(1))]),
  )
  .describe(
    'Keywords of the built-in classifier: book: ["table", "reserve"] or { en: [..], ru: [..] }; "/(?<guests>\\\\d+) people/" reads a slot',
  );
export type IntentKeywords = z.infer<typeof IntentKeywords>;
