/**
 * A project's own kind of step (`defineStepKind`): its fields as a zod object, its ways out, the variables it
 * sets and reads, what it shows on entry, and pure answers to a message, a press, an external event and a
 * timeout. Registered in the project's registry (`defineRegistry({ kinds: [rating] })`), it gets what a
 * built-in kind has: `botflow check` validates its fields at file:line:col with did-you-mean, the data-flow
 * checker knows what it reads and sets, transcripts, coverage, the storyboard and `botflow schema` see it.
 * custom-adapter.ts turns it into the internal contract (contract.ts); custom-actions.ts runs it.
 */
import type { z } from 'zod';

/** What a kind's handlers may read: the conversation's variables, the person's locale, the clock, texts. */
export interface KindScope {
  /** The conversation's variables. */
  readonly vars: Readonly<Record<string, unknown>>;
  /** The person's locale (`en`, `ru`…), as the step's texts are shown in. */
  readonly locale: string;
  /** The engine's clock at the event (ms since the epoch; virtual in transcripts and replays). */
  readonly now: number;
  /** A flow text in the person's locale: a literal with `{{variables}}`, or a catalog message id (i18n). */
  text(flowText: string): string;
}

/** A button a kind shows: a press comes back to `onPress` with its `id` (letters, digits, `_`, `-`). */
export interface KindButton {
  readonly id: string;
  readonly text: string;
}

/** What a step of the kind shows when it is entered (and drawn again): a text and rows of buttons. */
export interface KindView {
  readonly text?: string;
  readonly buttons?: readonly (readonly KindButton[])[];
}

/**
 * A handler's answer: go out by one of the kind's exits (setting variables, saying a text first), or refuse
 * (the text is said and the step waits again). `undefined`: not for this step (a message draws it again).
 */
export type KindAnswer<Exit extends string = string> =
  | { readonly goto: Exit; readonly set?: Readonly<Record<string, unknown>>; readonly say?: string }
  | { readonly refuse: string }
  | undefined;

/** An external event (`bot.events.send`) that came while the person is at the step. */
export interface KindEvent {
  readonly name: string;
  readonly payload: unknown;
}

/** A kind of step written in TypeScript: what `defineStepKind` takes. Every handler is synchronous and pure. */
export interface StepKindSpec<F extends z.ZodObject = z.ZodObject, Exit extends string = string> {
  /** The `type:` that selects this kind in flow files (lower case, not a built-in kind's). */
  readonly type: string;
  /** One sentence: what the step does (docs, `botflow schema`, an editor's hover). */
  readonly summary: string;
  /**
   * The kind's own version: raise it when its code changes what running conversations see. It is folded
   * into the version of every flow that uses the kind, so `botflow flows plan` shows the change and
   * conversations pinned to the old version are not run by the new code (their flow must `migrate:`).
   */
  readonly version?: string | number;
  /** The step's own fields, `.describe()`d (the JSON Schema and an editor's hover show the descriptions). */
  readonly fields: F;
  /** Its ways out: each name becomes a required field holding a step id (`next: thanks`), with its description. */
  readonly exits: Readonly<Record<Exit, string>>;
  /** Fields holding texts (a literal with `{{variables}}`, or a catalog id): checked like any step's `say`. */
  readonly texts?: readonly (keyof z.infer<F> & string)[];
  /** The variables the step sets when it goes out, with their types (for the data-flow checker). */
  sets?(step: z.infer<F>): Readonly<Record<string, z.ZodType>>;
  /** The variables the step reads (besides its texts' `{{variables}}`): each must be set before the step. */
  reads?(step: z.infer<F>): readonly string[];
  /** What the step shows on entry (and when drawn again). */
  show(step: z.infer<F>, scope: KindScope): KindView;
  /** The answer to typed text. Without it, typed text draws the step again. */
  onMessage?(step: z.infer<F>, text: string, scope: KindScope): KindAnswer<Exit>;
  /** The answer to a press of one of its buttons (`id` as `show` gave it). */
  onPress?(step: z.infer<F>, id: string, scope: KindScope): KindAnswer<Exit>;
  /** The answer to an external event. */
  onEvent?(step: z.infer<F>, event: KindEvent, scope: KindScope): KindAnswer<Exit>;
  /** With it, the step takes a `timeout: <duration>` field: the answer when the person stays silent that long. */
  onTimeout?(step: z.infer<F>, scope: KindScope): KindAnswer<Exit>;
}

/** A kind of step made by `defineStepKind`, ready for `defineRegistry({ kinds: [...] })`. */
export type ProjectStepKind = StepKindSpec & { readonly [KIND_SPEC]: true };

/** Marks what `defineStepKind` returned. */
export const KIND_SPEC: unique symbol = Symbol.for('botflow.stepKind');

/** Keys every step may already have, or that botflow draws itself: a kind's own fields cannot reuse them. */
export const RESERVED_FIELDS: readonly string[] = [
  'type',
  'say',
  'media',
  'keyboard',
  'render',
  'on_stale',
  'set',
  'do',
  'tag',
  'untag',
  'remind',
  'idle',
  'on_error',
  'timeout',
];

/**
 * Declares a kind of step of your own. Its handlers are synchronous and pure: they read the step's fields
 * and the conversation and return what happens (an exit, variables, texts); anything slow goes through a
 * task. Register it in the registry: `defineRegistry({ kinds: [rating] })`.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { defineRegistry, defineStepKind } from 'botflow-engine';
 *
 * export const yesNo = defineStepKind({
 *   type: 'yes_no',
 *   summary: 'Asks a yes/no question: two buttons, or "yes"/"no" typed',
 *   fields: z.object({
 *     question: z.string().describe('The question'),
 *     save: z.string().describe('The variable that receives true or false'),
 *   }),
 *   exits: { next: 'The step after the answer' },
 *   texts: ['question'],
 *   sets: (step) => ({ [step.save]: z.boolean() }),
 *   show: (step, { text }) => ({
 *     text: text(step.question),
 *     buttons: [[{ id: 'yes', text: 'Yes' }, { id: 'no', text: 'No' }]],
 *   }),
 *   onPress: (step, id) => ({ goto: 'next', set: { [step.save]: id === 'yes' } }),
 *   onMessage: (step, text) =>
 *     /^(yes|no)$/i.test(text.trim())
 *       ? { goto: 'next', set: { [step.save]: /^yes$/i.test(text.trim()) } }
 *       : { refuse: 'Please answer yes or no.' },
 * });
 *
 * export default defineRegistry({ kinds: [yesNo] });
 * ```
 */
export function defineStepKind<F extends z.ZodObject, Exit extends string>(
  spec: StepKindSpec<F, Exit>,
): ProjectStepKind {
  const problem = specProblem(spec as unknown as StepKindSpec);
  if (problem) throw new TypeError(`defineStepKind(${JSON.stringify(spec.type)}): ${problem}`);
  return Object.freeze({ ...spec, [KIND_SPEC]: true as const }) as unknown as ProjectStepKind;
}

/** What is wrong with a kind's declaration, in words, or undefined. */
function specProblem(spec: StepKindSpec): string | undefined {
  if (!/^[a-z][a-z0-9_]*$/.test(spec.type ?? ''))
    return 'type is lower-case letters, digits and _, starting with a letter';
  if (typeof spec.show !== 'function') return 'show(step, scope) is required: what the step shows on entry';
  const shape = (spec.fields as { shape?: Record<string, unknown> } | undefined)?.shape;
  if (!shape) return 'fields is a zod object: z.object({ ... })';
  const exits = Object.keys(spec.exits ?? {});
  if (!exits.length) return 'exits names at least one way out: { next: "The step after the answer" }';
  const clash = [...Object.keys(shape), ...exits].find((k) => RESERVED_FIELDS.includes(k));
  if (clash) return `"${clash}" is a field every step has (or botflow draws): name it otherwise`;
  const both = exits.find((k) => k in shape);
  if (both) return `"${both}" is both a field and an exit`;
  for (const t of spec.texts ?? []) if (!(t in shape)) return `texts names "${t}", which is not a field`;
  return undefined;
}

/** Whether `value` is a kind made by `defineStepKind`. */
export function isProjectStepKind(value: unknown): value is ProjectStepKind {
  return !!value && typeof value === 'object' && (value as Record<symbol, unknown>)[KIND_SPEC] === true;
}
