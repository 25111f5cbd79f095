/**
 * The types a kind's modules are written against but cannot import, since they are made from the kinds: a
 * step of any built-in kind (`Step`) and a flow file (`FlowFile`). The one list of built-in kinds is
 * registry.ts's `BUILTIN_KINDS`; it fills in `BuiltinSteps` (each kind's step type by its `type:` name),
 * and schema.ts, which builds the zod union from that list, fills in `FlowFormat`. Both by declaration
 * merging, so no file below the registry imports it (test/architecture/layers.test.ts: no import circle).
 */

/** The built-in kinds' step types by `type:` name (registry.ts fills it in from BUILTIN_KINDS). */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging (registry.ts)
export interface BuiltinSteps {}

/** A step of a flow file: one of the built-in kinds', told apart by `type`. */
export type Step = BuiltinSteps[keyof BuiltinSteps];

/** The flow file format's type (schema.ts fills it in: `{ file: FlowFile }`). */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging (schema.ts)
export interface FlowFormat {}

/** A flow file, as schema.ts's zod `FlowFile` reads it. */
export type FlowFile = FlowFormat extends { readonly file: infer F } ? F : never;

// k-analysis (issue 37): what `botflow check` puts in place of a step that breaks the schema (salvage.ts),
// so the other checks still run on the rest: an end, the kind that needs no field.
/** The stand-in for a broken step. */
export const stubStep = (): Step => ({ type: 'end' });
/** Whether a step (as parsed, maybe broken) is already the stand-in. */
export const isStub = (step: { type?: unknown }): boolean => step.type === stubStep().type;
