/**
 * A flow that fails at run time (an expression over a value nobody set, a text that cannot be drawn, a
 * guard that throws) must never leave a person without an answer. The flow's code throws `FlowFailure`
 * naming the step it failed at; the step (step.ts) then runs the flow's recovery instead of the event:
 * the failing step's `on_error`, else the flow's, else a built-in apology and a clean end.
 */
import { BotflowError } from '../../errors/index.ts';

const BRAND = Symbol.for('botflow.FlowFailure');

/** The flow's own code failed at `step` (a step key: `ask_qty`, or `address>street` in a called flow). */
export class FlowFailure extends BotflowError {
  override name = 'FlowFailure';
  override readonly code = 'BOTFLOW_FLOW_FAILED';
  readonly [BRAND] = true;
  constructor(
    readonly step: string | undefined,
    cause: unknown,
  ) {
    super('BOTFLOW_FLOW_FAILED', cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** True for a FlowFailure from any copy of this module. */
export function isFlowFailure(error: unknown): error is FlowFailure {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}

/**
 * XState rethrows what a guard throws as a new Error holding only its message ("Unable to evaluate guard
 * …:\n<message>"), so the guard's FlowFailure would be lost and the person left unanswered. A flow's guard
 * notes its failure here; `flowFailureOf` finds it again in the error XState threw.
 */
let guardFailure: FlowFailure | undefined;

/** Keeps `failure`, thrown by a guard, for `flowFailureOf`; returns it to be thrown. */
export function noteGuardFailure(failure: FlowFailure): FlowFailure {
  guardFailure = failure;
  return failure;
}

/** The FlowFailure `error` is or carries (one a guard threw, through XState's own error); else undefined. */
export function flowFailureOf(error: unknown): FlowFailure | undefined {
  const noted = guardFailure;
  guardFailure = undefined;
  if (isFlowFailure(error)) return error;
  if (noted && error instanceof Error && error.message.endsWith(`:\n${noted.message}`)) return noted;
  return undefined;
}

/** `error` as a failure at `step`: an inner failure keeps the step it named (the first to fail). */
export function failureAt(step: string | undefined, error: unknown): FlowFailure {
  return isFlowFailure(error) ? error : new FlowFailure(step, error);
}

/** The final state a flow file's machine ends in after the apology (no step of the flow). */
export const FAILED_STATE = '__failed';

/** The event a recovering flow receives, in place of the one that failed. */
export const FAILED_EVENT = 'botflow.failed';

/** What the step reports of a failure it recovered from. */
export interface RecoveredFailure {
  /** The step it failed at (the step key), when known. */
  step?: string;
  /** What went wrong, for the log. */
  message: string;
  /** Where that step is written (`flows/order.flow.yaml:23`), when the flow knows. */
  where?: string;
  /** How the flow recovered: its own `on_error` route, or the built-in apology and end. */
  recovery: 'route' | 'apology';
}
