/**
 * What programmers register in TypeScript for designers to name in flow files: validators, guards and
 * effects. All three must be pure: they see data and return data; effects return `Effect`s that the
 * engine's outbox carries out.
 */
import type { Effect } from '../engine/contract.ts';

/** What a validator, guard or effect can read about the conversation. */
export interface FlowScope {
  /** The conversation's variables (answers saved so far). */
  vars: Readonly<Record<string, unknown>>;
  locale: string;
  /** The rule's, condition's or effect call's `params` from the flow file. */
  params: Readonly<Record<string, unknown>>;
  /**
   * The engine's clock at the event (ms since the epoch): the real time in production, the virtual clock
   * in transcripts and replays. Use it, not `Date.now()`, for "a date not in the past".
   */
  now: number;
}

/** Returns true when the value is fine, or the error text (or message id) to show. */
export type Validator = (value: unknown, scope: FlowScope) => true | string;
/** Returns whether a `when: { guard: <name> }` condition holds. */
export type Guard = (scope: FlowScope) => boolean;
/** Returns the API calls or timers to perform, as data. */
export type EffectFactory = (scope: FlowScope) => Effect | Effect[];

/** The programmers' code flow files may name, by kind and name: build it with `defineRegistry`. */
export interface Registry {
  validators: Record<string, Validator>;
  guards: Record<string, Guard>;
  effects: Record<string, EffectFactory>;
}

/** Declares the validators, guards and effects that flow files may name. */
export function defineRegistry(parts: Partial<Registry>): Registry {
  return { validators: parts.validators ?? {}, guards: parts.guards ?? {}, effects: parts.effects ?? {} };
}

export const EMPTY_REGISTRY: Registry = defineRegistry({});
