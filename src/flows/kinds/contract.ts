/**
 * A step kind: everything botflow knows about one `type:` of step, in one place. The flows layer never asks
 * a step what it is; it asks the step's kind (kinds/registry.ts) to walk it (texts, ways out, calls,
 * conditions: the linter, the graph, coverage, the storyboard, mermaid), to add its edges and assignments
 * to the data-flow graph, and to build its XState state. Each built-in kind is a folder of its own:
 * `schema.ts` (its fields, described for docs, the JSON Schema and an editor's hover) and `index.ts` (the
 * rest). Features that cut across kinds (intents, typed answers, reminders, idle, buttons, events,
 * `come_back`, retries, `on_error`) are written once against this contract, not per kind.
 */
import type { z } from 'zod';
import type { Effect, FlowEvent } from '../../engine/step/contract.ts';
import type { Builder } from '../graph-builder.ts';
import type { SayText } from '../inputs.ts';
import type { Enqueue, FlowContext, StepEntry } from '../machine-context.ts';
import type { Registry } from '../registry.ts';
import type { Condition, FlowFile, Route, Step } from '../schema.ts';
import type { Aliases } from '../schema-parts.ts';
import type { StateConfig, StepState } from '../state-parts.ts';
import type { PreparedCandidates } from '../understand/match.ts';
import type { Walker } from '../walker.ts';

/** What every step has: the `type:` that selects its kind. */
export interface StepFields {
  readonly type: string;
}

/**
 * The contract of a kind of step. Its hooks are synchronous and pure (they describe; the engine runs), so
 * a kind cannot break the engine's guarantees: one transaction per step, the outbox, stale buttons, pinned
 * versions.
 */
export interface StepKind<S extends StepFields = StepFields> {
  /** The `type:` that selects this kind in a flow file. */
  readonly type: S['type'];
  /** One sentence: what the step does (docs, the JSON Schema's description, an editor's hover). */
  readonly summary: string;
  /** Its fields: a strict zod object whose `type` is the literal above, each field `.describe()`d. */
  readonly schema: z.ZodType<S>;
  /** Whether typed text reaches intents (`understand:`, the flow's own) while a person is at this step. */
  readonly understands: boolean;
  /** The step with the flow's `defaults:` filled in, where the kind reads them. */
  withDefaults?(step: S, flow: FlowFile): S;
  /** Lists the step's own texts, ways out, calls and conditions (after what every step may have). */
  walk(step: S, w: Walker, id: string): void;
  /** Adds the step's own edges and assignments to the data-flow graph (after what every step may have). */
  graph(step: S, g: Builder, id: string): void;
  /** The step's XState state: its entry, its transitions for messages, presses, events and timers. */
  state(step: S, at: StepState): StateConfig;
  // ── k-machine: the run time (actions.ts, guards.ts, intents.ts, render.ts, typed-answers.ts). Every hook
  // is optional; its default is what a step without it does.
  /**
   * Typed text is this step's answer (an input): intents' fallbacks for unclear or unknown text stand in
   * only for a step that would otherwise draw itself again. Default: false.
   */
  readonly readsText?: boolean;
  /**
   * Whether the step offers options or buttons that typed text may name: those win over the flow's global
   * intents, which otherwise come before the step's own reading of the text. Default: true.
   */
  offersChoices?(step: S): boolean;
  /** Where typed text that nothing else takes goes (a menu's `on_text`). Default: nowhere (drawn again). */
  onText?(step: S): Route | undefined;
  /** A route the kind names itself (`exhausted`, `empty`…), which the `route` action runs. Default: none. */
  route?(step: S, which: string): Route | undefined;
  /** The i-th way out that has a condition (a branch's case). Default: the i-th entry of a list `next:`. */
  nextAt?(step: S, i: number): NextEntry | undefined;
  /**
   * Entering the step, before its own `set:`: what the kind puts in the context first (a call's `with:`
   * parameters, an end's `return:` value). Returns the context to go on with. Default: none.
   */
  entering?(step: S, c: FlowContext, enqueue: Enqueue): FlowContext;
  /** The choices the step copies when it is entered (a press carries only an index). Default: none. */
  choices?(step: S, e: StepEntry, c: FlowContext, say: Say): Choice[] | undefined;
  /** Keyboard rows drawn above the step's own buttons (an input's options, a page of choices). */
  keyboard?(step: S, e: StepEntry, c: FlowContext, draw: Drawing): unknown[][];
  /** The step sends its own text on entering (a handoff): the shared drawing leaves it. Default: false. */
  readonly drawsItself?: boolean;
  /** The conversation is with the operators while it is at this step (FlowDefinition.handoff). */
  readonly withOperators?: boolean;
  /** Event names the step takes besides its `on_event` (a handoff: the operators' chat's). */
  events?(step: S): readonly string[];
  /** The flows the step runs inside its own (a call's): their events are its flow's too. Default: none. */
  inlined?(step: S): readonly string[];
  /** A flow called from a button, command or event returns to this step (it waits for the person). */
  readonly resumes?: boolean;
  /** The named actions and guards only this kind uses, built once per compiled flow over `kit`. */
  parts?(kit: RunKit): KindParts;
}

/**
 * How the run time finds a step's kind: compile.ts hands down the registry's `kindOf`. The run-time files
 * take it as a parameter instead of importing the registry, since the kinds' own files import them.
 */
export type KindOf = (step: Step) => StepKind<Step>;

/** A way out by index: the condition and the `set:` of a `next` entry or a branch case. */
export interface NextEntry {
  readonly when?: Condition | undefined;
  readonly set?: Readonly<Record<string, unknown>> | undefined;
}

/** A choice copied from a list: its text as shown and the value saved. */
export type Choice = { text: string; value: unknown };

type Say = (e: StepEntry, c: FlowContext, text: SayText | string) => string;

/** What a kind's keyboard rows are drawn with. */
export interface Drawing {
  say: Say;
  /** The "Done" label of a multi-select's last row. */
  doneText(e: StepEntry, c: FlowContext): string;
}

/** A kind's own named actions and guards (XState implementations; names shared by all kinds' parts). */
export interface KindParts {
  readonly actions?: Record<string, unknown>;
  readonly guards?: Record<string, unknown>;
}

/** Options a typed answer is matched against, as a step declares them. */
export type Declared = readonly { id: string; text: string; aliases?: Aliases | undefined }[];

/** A close option of a clarifying question: its label and its button. */
export type ClarifyButton = { text: string; button: Record<string, unknown> };

/** The helpers the actions of one compiled flow share (action-kit.ts), as a kind's `parts` use them. */
export interface RunKit {
  entry(key: string): StepEntry;
  readonly registry: Registry;
  /** Some step is drawn with `render: edit`. */
  readonly usesEdit: boolean;
  localeOf(e: StepEntry, c: FlowContext): string;
  say: Say;
  doneText(e: StepEntry, c: FlowContext): string;
  effect(enqueue: Enqueue, effect: Effect): void;
  send(enqueue: Enqueue, e: StepEntry, text: string): void;
  render(e: StepEntry, c: FlowContext, enqueue: Enqueue, forceNew?: boolean, editPressed?: boolean): void;
  keyboardOf(e: StepEntry, c: FlowContext): unknown;
  runRoute(
    e: StepEntry,
    c: FlowContext,
    route: Route | undefined,
    enqueue: Enqueue,
    now: number,
  ): FlowContext;
  /** Arms the step's timers (reminders, idle) again. */
  arm(e: StepEntry, enqueue: Enqueue): void;
  /** The event is for this flow (not a global command). */
  isLocal(event: FlowEvent): boolean;
  nextCondition(e: StepEntry, i: number): Condition | undefined;
  /** Typed answers (typed-answers.ts). */
  readonly typed: TypedKit;
}

/** Typed answers' shared helpers: labels, candidates kept once per step or list, the clarifying question. */
export interface TypedKit {
  /** A flow text as the person sees it, and in the flow's default locale. */
  labelsFor(e: StepEntry, c: FlowContext): (text: string) => string[];
  /** Declared options prepared once per step and locales (unless a label changes with the variables). */
  declaredFor(e: StepEntry, c: FlowContext, options: () => Declared): PreparedCandidates;
  /** The context's choices prepared once per list. */
  listedFor(c: FlowContext): PreparedCandidates;
  /** Asks which of the close options was meant, with them as buttons. */
  clarify(enqueue: Enqueue, e: StepEntry, c: FlowContext, buttons: readonly ClarifyButton[]): void;
}

/** Declares a kind, checking it against the contract. */
export const stepKind = <S extends StepFields>(kind: StepKind<S>): StepKind<S> => kind;
