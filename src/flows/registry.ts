/**
 * What programmers register in TypeScript for designers to name in flow files: validators, guards and
 * effects. All three must be pure: they see data and return data; effects return `Effect`s that the
 * engine's outbox carries out.
 */
import type { z } from 'zod';
import type { TaskDefinition, TaskRun, TaskSpec } from '../dispatch/tasks/task.ts';
import type { ProjectStepKind } from './kinds/custom.ts';

/** Kinds of step of a project's own go in the registry too (`kinds`): made here. */
export { defineStepKind } from './kinds/custom.ts';

import { ClassifierInput, ClassifierResult } from './schema-intents.ts';

export { ClassifierInput, ClassifierResult } from './schema-intents.ts';

import type { Effect } from '../engine/step/contract.ts';

export {
  defineTask,
  type TaskContext,
  type TaskDefinition,
  TaskError,
  type TaskSpec,
} from '../dispatch/tasks/task.ts';

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
  /**
   * Async code flows start with `do: [{task: <name>}]`: a function `(input, ctx) => result`, or
   * `defineTask({input, result, run})` with zod schemas. Run durably, at least once, off the step.
   */
  tasks?: Record<string, TaskDefinition>;
  /**
   * Payload schemas of external events, by name (`order_shipped: z.object({ id: z.number() })`): an
   * event is refused before it is stored when its payload does not match; `botflow check` types a route's
   * `save_as` from it. A name here is known even when no flow names it yet.
   */
  events?: Record<string, z.ZodType>;
  /**
   * The project's own kinds of step, made by `defineStepKind` (`type: rating` in a flow file): checked,
   * drawn and run like the built-in ones.
   */
  kinds?: readonly ProjectStepKind[];
}

/** Declares the validators, guards, effects and tasks that flow files may name. */
export function defineRegistry(parts: Partial<Registry>): Registry {
  return {
    validators: parts.validators ?? {},
    guards: parts.guards ?? {},
    effects: parts.effects ?? {},
    tasks: parts.tasks ?? {},
    events: parts.events ?? {},
    kinds: parts.kinds ?? [],
  };
}

export const EMPTY_REGISTRY: Registry = defineRegistry({});

/** The slots a classifier may read, per intent, with their zod types: `{ book: { day: z.string() } }`. */
export type ClassifierSlots = Readonly<Record<string, Readonly<Record<string, z.ZodType>>>>;

/** A classifier task (`understand: { classifier: <name> }`): botflow's fixed shapes, and its slots. */
export interface ClassifierSpec extends TaskSpec<ClassifierInput, ClassifierResult> {
  /**
   * The slots it may read for each intent, with their types: `save_slots: true` on that intent's route
   * saves them as variables of the same names, and `botflow check` knows them (names and fields).
   */
  slots?: ClassifierSlots;
}

/**
 * Declares a classifier task: input `ClassifierInput`, result `ClassifierResult`, and the slots each intent
 * may carry (`slots: { book: { day: z.string(), guests: z.number() } }`) so that `botflow check` knows the
 * variables `save_slots` sets.
 */
export function defineClassifier(spec: {
  run: TaskRun<ClassifierInput, ClassifierResult>;
  slots?: ClassifierSlots;
}): ClassifierSpec {
  return { input: ClassifierInput, result: ClassifierResult, ...spec };
}

/** The slots a registered classifier declares for `intent` (undefined: it declares none, or is no classifier). */
export function classifierSlots(
  registry: Registry,
  classifier: string,
  intent: string,
): Readonly<Record<string, z.ZodType>> | undefined {
  const task = Object.hasOwn(registry.tasks ?? {}, classifier) ? registry.tasks![classifier] : undefined;
  const slots = task && typeof task === 'object' ? (task as ClassifierSpec).slots : undefined;
  return slots && Object.hasOwn(slots, intent) ? slots[intent] : undefined;
}

/** One call of the programmers' code that took longer than its budget. */
export interface SlowCall {
  kind: 'validator' | 'guard' | 'effect';
  name: string;
  ms: number;
  budgetMs: number;
}

/**
 * The registry with every function timed against `budgetMs`. Validators, guards and effects run on the
 * engine's thread inside a step, so a slow one holds up every conversation: each call over the budget
 * is reported (its kind, name and time). Synchronous code cannot be stopped half way; the report is what
 * tells the programmer to make it fast, or to move the slow part out of the step.
 */
export function budgeted(registry: Registry, budgetMs: number, report: (slow: SlowCall) => void): Registry {
  const wrap = <F extends (...args: never[]) => unknown>(kind: SlowCall['kind'], name: string, fn: F): F =>
    ((...args: Parameters<F>) => {
      const started = performance.now();
      try {
        return fn(...args);
      } finally {
        const ms = performance.now() - started;
        if (ms > budgetMs) report({ kind, name, ms: Math.round(ms), budgetMs });
      }
    }) as F;
  const each = <F extends (...args: never[]) => unknown>(kind: SlowCall['kind'], fns: Record<string, F>) =>
    Object.fromEntries(Object.entries(fns).map(([name, fn]) => [name, wrap(kind, name, fn)]));
  return {
    validators: each('validator', registry.validators),
    guards: each('guard', registry.guards),
    effects: each('effect', registry.effects),
    // Tasks run off the step, under their own deadlines: nothing to time here.
    tasks: registry.tasks,
    events: registry.events,
    // A kind's handlers are pure and run inside the step like validators; they are not timed (yet).
    kinds: registry.kinds,
  };
}
