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
import type { Effect, FlowDefinition, FlowEvent } from '../../engine/step/contract.ts';
import type { Builder } from '../graph-builder.ts';
import type { SayText } from '../inputs.ts';
import type { LintInput, Report } from '../lint-input.ts';
import type { Enqueue, FlowContext, StepEntry } from '../machine-context.ts';
import type { Path } from '../problems.ts';
import type { Registry } from '../registry.ts';
import type { Aliases, Condition, Route } from '../schema-parts.ts';
import type { StateConfig, StepState } from '../state-parts.ts';
import type { PreparedCandidates } from '../understand/match.ts';
import type { VarType } from '../var-types.ts';
import type { Walker } from '../walker.ts';
import type { FlowFile, Step } from './steps.ts';

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

  // ── k-analysis (issue 37): what `botflow check` and the data-flow checker ask a kind. Each is optional;
  // its default (stated with it) is what a kind that says nothing gets.
  /**
   * The kind's own checks beyond its schema (lint-steps.ts runs them after the media and keyboard checks
   * every step gets): problems reported with a path of the flow file, as the linter reports them.
   * Default: none.
   */
  check?(step: S, c: StepCheck): void;
  /**
   * The variables the step's own fields read (beyond its texts, conditions, `set:`/`with:` values and
   * keyboard, which every step's walk lists): an input's time zone and `options_from`, an end's `return`.
   * lint-vars.ts checks that each is set and has the fields read. Default: none.
   */
  reads?(step: S, r: StepReads): void;
  /**
   * The list variable whose element `{{item}}` names in the step's field at `path` (under the step), if
   * any: an input's `options_from` (but not its `empty` route). Default: none.
   */
  itemListAt?(step: S, path: Path): string | undefined;
  /** Whether the flow ends at this step (a called flow returns to its caller from it). Default false. */
  readonly endsFlow?: boolean;
  /**
   * What the step hands back to a calling flow: one variable (its value is the result) or a list of them
   * (an object of them). Default: nothing.
   */
  returns?(step: S): string | readonly string[] | undefined;
  /**
   * The ways out the kind adds beyond its keyboard's buttons, its `on_event` routes and its intents (a
   * menu's `on_text`, an input's `retries.exhausted` and `options_from.empty`). Default: none.
   */
  routes?(step: S): readonly KindRoute[];
  /**
   * Whether a task in the step's `do:` is waited for here ("typing…", then the route of its outcome): a
   * task runs from such a step only. Default false (a message step's is true).
   */
  readonly runsTasks?: boolean;
  /**
   * Whether the step asks a question that a person answers by typing (or by picking a choice): it is
   * expected right after a typed answer, so its own `render: edit` is not warned about there. Default false.
   */
  readonly asksQuestion?: boolean;
  /**
   * Where a typed answer at this step leads (its `next` targets), and what was typed: free text (a name, a
   * number, a date) or the name of a choice that buttons also offer. Default: typed text is not an answer.
   */
  typedAnswer?(step: S): { readonly to: readonly string[]; readonly as: 'text' | 'choice' } | undefined;
  /**
   * Whether typed text that names one of the step's callback buttons (its label or an alias) counts as its
   * press: the buttons' `aliases` are read only then. Default false (a menu's is true).
   */
  readonly namesButtons?: boolean;
  /**
   * What a person can name by typing instead of pressing (an input's options, a menu's callback buttons),
   * each with where it is written: check warns about two that typing cannot tell apart. Default: none.
   */
  typedChoices?(step: S, id: string): readonly TypedChoice[];
  /**
   * The rows of buttons the kind draws itself besides its `keyboard:` (an input's options, the fullest page
   * of its `options_from`), as the platform gets them, each row with where it is written, for the
   * platform's keyboard limits; `hint`: what to change when their shape breaks one. Default: none.
   */
  buttonRows?(step: S, id: string): { rows: Record<string, unknown>[][]; paths: Path[]; hint?: string };

  // ── k-views (issue 37): how the views show a step: the storyboard, the playground's graph, coverage's
  // skeleton transcripts. Each is optional; kinds/views.ts gives the default a project's own kind gets.
  /** How the storyboard and the playground's graph draw the step. Default: a stadium labelled `type`. */
  readonly drawing?: StepDrawing;
  /**
   * The flow whose steps run inside this step's own state (a `call`'s), so that views follow a state path
   * (`book>pick_day`) into the called flow's file. Default: none.
   */
  nested?(step: S): string | undefined;
  /**
   * The person's turn a skeleton transcript (`botflow test --coverage --skeletons`) writes to take the way
   * out `way` of the step with id `at` (a coverage edge's label: `accept`, `invalid answer`…), as one
   * transcript action (`say: "TODO …"`, `press: "…"`). Undefined (the default) leaves it to the turns
   * every step gets: buttons pressed, commands, events, reminders and idle waited for, any text said.
   */
  skeleton?(step: S, way: string, at: string): string | undefined;

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
  /**
   * What the kind adds to every compiled flow's definition (the handoff: the operators' chat, the steps
   * with operators, their notices), given the flow and its commands' entry. Default: nothing.
   */
  definition?(flow: FlowFile, root: StepEntry, kindOf: KindOf): Partial<FlowDefinition>;
}

/** What a kind's `check` is given: the flow being checked (with the registry and the other flows). */
export interface StepCheck {
  readonly x: LintInput;
  /** The step's id in the flow. */
  readonly id: string;
  readonly report: Report;
  /** Whether flow `flow` hands anything back (an end step's `return`); undefined when no such flow loaded. */
  returns(flow: string): boolean | undefined;
}

/** What a kind's `reads` is given: how to list a read of a variable (flow-reads.ts). */
export interface StepReads {
  /** The step's id in the flow. */
  readonly id: string;
  /** The `{{variables}}` of a template written at `path`, read when the step is entered. */
  template(path: Path, text: string): void;
  /**
   * A variable (`slot` or `slot.time`) named at `path`, read when the step is entered; with `item`, a name
   * where `item` is that element of a list (its fields are checked, not whether it is set).
   */
  variable(path: Path, dotted: string, item?: VarType): void;
  /** The type of a variable (`slots`, `order.items`) as the flow sees it, if known. */
  typeOf(dotted: string): VarType | undefined;
  readonly report: Report;
}

/** A way out of a step that its kind adds (see StepKind.routes). */
export interface KindRoute {
  /** Where it is written, under the step: `['on_text']`, `['retries', 'exhausted']`. */
  readonly path: Path;
  readonly route: Route;
  /**
   * Whether a person takes it by what they send (typed text at a menu), as a button's or an event's route
   * is taken, so a `come_back` on it returns; false for a route the step falls back to by itself (retries
   * run out, an empty list).
   */
  readonly onSend: boolean;
}

/** Something a person can name by typing at a step (see StepKind.typedChoices). */
export interface TypedChoice {
  readonly id: string;
  readonly text: string;
  readonly aliases?: Aliases | undefined;
  readonly path: Path;
}

/**
 * The outlines a step is drawn with (the playground's graph draws each; the storyboard names it):
 * `stadium` says and moves on, `rect` waits for the person's answer, `hexagon` decides alone,
 * `subroutine` runs another flow, `parallelogram` waits for someone or something else.
 */
export const STEP_SHAPES = ['stadium', 'rect', 'hexagon', 'subroutine', 'parallelogram'] as const;
export type StepShape = (typeof STEP_SHAPES)[number];

/** How a step is drawn: its outline, and a word or two for its badge (`question`, `menu`…). */
export interface StepDrawing {
  readonly shape: StepShape;
  readonly label: string;
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
