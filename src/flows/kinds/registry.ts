/**
 * The built-in step kinds, one line each, and how a step finds its kind. This list is the only one: the
 * `Step` type (kinds/steps.ts, filled in below), the zod union of the flow file format (schema.ts) and
 * `KIND_NAMES` are made from it, in its order. Nothing outside a kind's folder and this registry asks a
 * step what type it is.
 */
import type { z } from 'zod';
import { branch } from './branch/index.ts';
import { call } from './call/index.ts';
import type { StepKind } from './contract.ts';
import { attachedKind } from './custom-attach.ts';
import { end } from './end/index.ts';
import { handoff } from './handoff/index.ts';
import { input } from './input/index.ts';
import { menu } from './menu/index.ts';
import { message } from './message/index.ts';
import type { Step } from './steps.ts';
import { wait } from './wait/index.ts';

/**
 * The built-in kinds, in the order docs and the JSON Schema list them. Adding one is its folder and its
 * line here.
 */
// biome-ignore format: one line per kind
export const BUILTIN_KINDS = [
  message,
  input,
  menu,
  wait,
  branch,
  call,
  end,
  handoff,
] as const;

/**
 * The step types of a list of kinds, by `type:` name: what each kind's schema reads. (Read off `schema`,
 * not inferred from `StepKind<S>`, so the type never has to compare kinds, whose hooks name `FlowFile`,
 * which is made from this.)
 */
export type StepsOf<K extends readonly { readonly type: string; readonly schema: z.ZodType }[]> = {
  [E in K[number] as E['type']]: z.output<E['schema']>;
};

/** A step of a built-in kind: the union of the registry's kinds' step types. */
export type BuiltinStep = StepsOf<typeof BUILTIN_KINDS>[keyof StepsOf<typeof BUILTIN_KINDS>];

declare module './steps.ts' {
  /** A step of each built-in kind, by name: made from BUILTIN_KINDS. */
  interface BuiltinSteps extends StepsOf<typeof BUILTIN_KINDS> {}
}

/** The kinds' schemas, in the registry's order (schema.ts joins them into the `Step` union). */
export const STEP_SCHEMAS: readonly z.ZodType<Step>[] = BUILTIN_KINDS.map((k) => k.schema);

const byType = new Map(BUILTIN_KINDS.map((k): [string, StepKind<Step>] => [k.type, k]));

/** The kinds' `type:` names. */
export const KIND_NAMES: readonly string[] = BUILTIN_KINDS.map((k) => k.type);

/** The kind of a step (validated, so it has one): a built-in, or the project's kind the loader attached. */
export function kindOf(step: Step): StepKind<Step> {
  const kind = byType.get(step.type) ?? attachedKind<StepKind<Step>>(step);
  if (!kind) throw new Error(`no step kind "${step.type}" (known: ${KIND_NAMES.join(', ')})`);
  return kind;
}
