/**
 * The types the compiled machine's actions share: its context (stored with every snapshot), the steps it
 * runs, and XState's `enqueue` as the actions use it.
 */
import { enqueueActions } from 'xstate';
import type { FlowEvent } from '../engine/step/contract.ts';
import { failureAt, noteGuardFailure } from '../engine/step/failure.ts';
import type { FlowFile, Step } from './kinds/steps.ts';
import type { TextFormat, TextRenderer } from './texts.ts';

/** The machine's context: small and JSON-only (it is stored with every snapshot). */
export interface FlowContext {
  /** Answers and variables set by the flow. `locale` here overrides the person's locale. */
  vars: Record<string, unknown>;
  /** The person's locale when the flow started. */
  locale?: string;
  /** Failed attempts at the current input. */
  retries: number;
  /** The top-level step the conversation is in (where calls return to). */
  at?: string;
  /** Id of the bot message a step drawn with `render: edit` replaces (cleared by typed input). */
  mid?: string;
  /** Options picked so far on a `multi_choice` step. */
  picked?: string[];
  /** The step a `come_back: true` route returns to after the next accepted answer. */
  back?: string;
  /** The step that `come_back` edit went to: entering any other step forgets `back`. */
  editing?: string;
  /** The value a called flow's end step returned (`return:`), until the call step saves it. */
  ret?: unknown;
  /**
   * The choices of an `options_from` step, copied from the list when the step was entered: a press
   * carries only its index, and an old keyboard's press can never pick from a list that changed since.
   */
  choices?: { text: string; value: unknown }[];
  /**
   * The text a classifier task is reading (an `understand:` with a `classifier:`), until its answer comes:
   * when nothing takes it, it is the funnel's sample (`input.unrecognised`).
   */
  heard?: string;
  /** The page of `choices` the keyboard shows. */
  page?: number;
  /** Messages that came while the step's task ran (`while_running: queue`): handled after its result. */
  queued?: FlowEvent[];
  /**
   * The person's last handoff request was closed by its step (the operator's `/done`, the timeout), not left:
   * a late action of an operator on it is answered "closed" (docs/handoff.md). Bookkeeping, not a variable.
   */
  handoffClosed?: boolean;
  /** The message id of the request the person's handoff step posted, while they are at it (to edit it). */
  handoffMessage?: string;
  /** External events that came while the person was on a step that does not take them (`while_elsewhere: queue`). */
  events?: { name: string; payload: unknown }[];
}

/** A step of a (possibly inlined) flow, with what is needed to run it. */
export interface StepEntry {
  key: string;
  id: string;
  flow: FlowFile;
  step: Step;
  text: TextRenderer;
  format: TextFormat;
  topLevel: boolean;
}

/** XState's `enqueue` inside `enqueueActions`, as the flows' actions use it. */
export type Enqueue = {
  (a: { type: string; params: unknown }): void;
  assign(v: Partial<FlowContext>): void;
  /** Sends an event to the machine itself, handled right after the current transition (never delayed). */
  raise(event: FlowEvent): void;
};
/** The arguments of an `enqueueActions` callback. */
export type Args = { context: FlowContext; event: FlowEvent; enqueue: Enqueue };

/** The params compile.ts gives a step's actions and guards (never stored: part of the machine's definition). */
export interface StepParams {
  /** The step's key in the compiled flow (`ask_name`, or `address>street` inside a called flow). */
  step: string;
  /** `enter`: the step's state path (`ask_name`, `call_step>street`), as the step log names it. */
  path?: string;
  /** Which route of the step runs: `button:<id>`, `command:<name>`, `idle`, `on_text`. */
  route?: string;
  /** Which `next` condition, branch case or reminder. */
  index?: number;
  /** `rerender` sends a new message instead of editing. */
  fresh?: boolean;
  /** `reject` of the last allowed attempt: the `exhausted` route runs. */
  last?: boolean;
  /** `answer` only when a `come_back` edit is under way. */
  back?: boolean;
}

/** The event's time: `meta.now`, or the start input's for the first entry. */
export function nowOf(event: unknown): number {
  const e = event as { meta?: { now?: number }; input?: { meta?: { now?: number } } };
  return e.meta?.now ?? e.input?.meta?.now ?? 0;
}

/** Step key of the flow-level entry that global commands run in (no step id starts with #). */
export const COMMANDS_ENTRY = '#commands';
/** The event that draws the current step again (FlowDefinition.rerenderEvent). */
export const RERENDER_EVENT = 'botflow.rerender';

/** The step key a failure at a flow-wide action (a global command's route) is reported at: none. */
const FLOW_WIDE = COMMANDS_ENTRY;

/**
 * A named action of a compiled flow: XState's `enqueueActions`, with anything it throws turned into a
 * `FlowFailure` at its step, so the engine runs the flow's recovery (`on_error`) instead of failing the event.
 */
export function flowAction(run: (args: Args, p: StepParams) => void) {
  return enqueueActions((args: Args, p: StepParams) => {
    try {
      run(args, p);
    } catch (error) {
      throw failureAt(p?.step === FLOW_WIDE ? undefined : p?.step, error);
    }
  });
}

/** A named guard of a compiled flow, with what it throws turned into a `FlowFailure` at its step. */
export function flowGuard<A, P extends { step?: string }>(guard: (args: A, p: P) => boolean) {
  return (args: A, p: P): boolean => {
    try {
      return guard(args, p);
    } catch (error) {
      throw noteGuardFailure(failureAt(p?.step === FLOW_WIDE ? undefined : p?.step, error));
    }
  };
}

/** The step key (`step`, `call>inner`, `__call_help>step`) of a state value. */
export function stepKeyOf(value: unknown): string {
  const parts: string[] = [];
  let v = value;
  while (v && typeof v === 'object') {
    const [k, inner] = Object.entries(v as Record<string, unknown>)[0] ?? [];
    if (k === undefined) break;
    parts.push(k);
    v = inner;
  }
  if (typeof v === 'string') parts.push(v);
  return parts.join('>');
}
