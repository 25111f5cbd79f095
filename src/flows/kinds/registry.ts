/**
 * The built-in step kinds, one line each (their schemas are listed in steps.ts), and how a step finds its
 * kind. Nothing outside a kind's folder and this registry asks a step what type it is.
 */
import type { Step } from '../schema.ts';
import { branch } from './branch/index.ts';
import { call } from './call/index.ts';
import type { StepKind } from './contract.ts';
import { attachedKind } from './custom-attach.ts';
import { end } from './end/index.ts';
import { handoff } from './handoff/index.ts';
import { input } from './input/index.ts';
import { menu } from './menu/index.ts';
import { message } from './message/index.ts';
import { wait } from './wait/index.ts';

/** The built-in kinds, in the order docs and the JSON Schema list them. */
export const BUILTIN_KINDS: readonly StepKind<Step>[] = [
  message,
  input,
  menu,
  wait,
  branch,
  call,
  end,
  handoff,
];

const byType = new Map<string, StepKind<Step>>(BUILTIN_KINDS.map((k) => [k.type, k]));

/** The kinds' `type:` names. */
export const KIND_NAMES: readonly string[] = BUILTIN_KINDS.map((k) => k.type);

/** The kind of a step (validated, so it has one): a built-in, or the project's kind the loader attached. */
export function kindOf(step: Step): StepKind<Step> {
  const kind = byType.get(step.type) ?? attachedKind<StepKind<Step>>(step);
  if (!kind) throw new Error(`no step kind "${step.type}" (known: ${KIND_NAMES.join(', ')})`);
  return kind;
}
