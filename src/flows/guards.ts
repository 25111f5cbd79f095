/** The named guards of a compiled flow: which transition an event takes. Pure reads of context and event. */
import type { FlowEvent } from '../engine/step/contract.ts';
import { evaluateCondition } from './conditions.ts';
import { type InputResult, isAnswerEvent, pageOf, pressedId } from './inputs.ts';
import { type FlowContext, nowOf, type StepEntry, type StepParams } from './machine-context.ts';
import type { Registry } from './registry.ts';
import { RENDER_REF } from './render.ts';
import type { Condition, InputStep } from './schema.ts';
import type { MatchResult } from './understand/match.ts';

/** What the guards read through: the compiled steps and the actions' shared helpers. */
export interface GuardKit {
  entry(key: string): StepEntry;
  localeOf(e: StepEntry, c: FlowContext): string;
  answerFor(e: StepEntry, s: InputStep, event: FlowEvent, c: FlowContext): InputResult;
  /** A menu step's typed text read against its buttons (typed-answers.ts). */
  menuAnswerFor(e: StepEntry, event: FlowEvent, c: FlowContext): MatchResult;
  isLocal(event: FlowEvent): boolean;
  nextCondition(e: StepEntry, i: number): Condition | undefined;
  registry: Registry;
  /** The designer patterns' guards (designer-actions.ts). */
  designer: Record<string, unknown>;
}

type P = StepParams;

/** Builds the guards. */
export function guardsFor(k: GuardKit) {
  const { entry, localeOf, answerFor, menuAnswerFor, isLocal, nextCondition, registry } = k;
  return {
    ...(k.designer as Record<string, never>),
    answer: ({ context, event }: { context: FlowContext; event: FlowEvent }, p: P) => {
      const e = entry(p.step);
      const s = e.step;
      if (s.type !== 'input' || !isLocal(event) || !isAnswerEvent(s, event)) return false;
      if (p.back === true && context.back === undefined) return false;
      const r = answerFor(e, s, event, context);
      if (!r.ok) return false;
      const when = p.index === undefined ? undefined : nextCondition(e, p.index ?? 0);
      if (!when) return true;
      const vars = s.save ? { ...context.vars, [s.save]: r.value } : context.vars;
      return evaluateCondition(when, vars, localeOf(e, context), registry, nowOf(event));
    },
    exhausted: ({ context, event }: { context: FlowContext; event: FlowEvent }, p: P) => {
      const e = entry(p.step);
      const s = e.step;
      if (s.type !== 'input' || !isLocal(event) || !isAnswerEvent(s, event)) return false;
      if (context.retries + 1 < s.retries.max) return false;
      // A clarifying question is no wrong answer: it never uses up the last attempt.
      const r = answerFor(e, s, event, context);
      return !(!r.ok && r.clarify);
    },
    // A menu's typed text names this button (by label, alias, position, yes/no or a typo).
    typedButton: ({ context, event }: { context: FlowContext; event: FlowEvent }, p: P & { id?: string }) => {
      const m = menuAnswerFor(entry(p.step), event, context);
      return m.kind === 'match' && m.id === p.id;
    },
    typedUnclear: ({ context, event }: { context: FlowContext; event: FlowEvent }, p: P) =>
      menuAnswerFor(entry(p.step), event, context).kind === 'ambiguous',
    local: ({ event }: { event: FlowEvent }) => isLocal(event),
    pageTurn: ({ event }: { event: FlowEvent }) =>
      event.type === 'button' && pageOf(pressedId(event)) !== undefined,
    noChoices: ({ context }: { context: FlowContext }) => context.choices?.length === 0,
    answerEvent: ({ event }: { event: FlowEvent }, p: P) => {
      const s = entry(p.step).step;
      return s.type === 'input' && isLocal(event) && isAnswerEvent(s, event);
    },
    cond: ({ context, event }: { context: FlowContext; event: FlowEvent }, p: P) => {
      const e = entry(p.step);
      const when = nextCondition(e, p.index ?? 0);
      return !when || evaluateCondition(when, context.vars, localeOf(e, context), registry, nowOf(event));
    },
    button: ({ event }: { event: FlowEvent }, p: { id: string }) =>
      event.type === 'button' && event.button === p.id,
    command: ({ event }: { event: FlowEvent }, p: { name: string }) =>
      event.type === 'command' && event.name === p.name,
    timer: ({ event }: { event: FlowEvent }, p: { name: string }) =>
      event.type === 'timer' && event.name === p.name,
    returnTo: ({ context }: { context: FlowContext }, p: { step: string }) => context.at === p.step,
    jumpTo: ({ event }: { event: FlowEvent }, p: { step: string }) =>
      event.type === 'botflow.jump' && event.step === p.step,
    rendered: ({ event }: { event: FlowEvent }) => event.type === 'effect.done' && event.ref === RENDER_REF,
  };
}
