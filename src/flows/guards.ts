/**
 * The named guards every compiled flow shares: which transition an event takes. Pure reads of context and
 * event. A kind's own guards (an input's answer, a menu's typed button…) are its `parts` (kinds/contract.ts).
 */
import type { FlowEvent } from '../engine/step/contract.ts';
import { evaluateCondition } from './conditions.ts';
import { type FlowContext, nowOf, type StepEntry, type StepParams } from './machine-context.ts';
import type { Registry } from './registry.ts';
import { RENDER_REF } from './render.ts';
import type { Condition } from './schema.ts';

/** What the guards read through: the compiled steps and the actions' shared helpers. */
export interface GuardKit {
  entry(key: string): StepEntry;
  localeOf(e: StepEntry, c: FlowContext): string;
  isLocal(event: FlowEvent): boolean;
  nextCondition(e: StepEntry, i: number): Condition | undefined;
  registry: Registry;
  /** The guards of the other parts: designer patterns, tasks, intents, events, the kinds' own. */
  designer: Record<string, unknown>;
}

type P = StepParams;

/** Builds the guards. */
export function guardsFor(k: GuardKit) {
  const { entry, localeOf, isLocal, nextCondition, registry } = k;
  return {
    ...(k.designer as Record<string, never>),
    local: ({ event }: { event: FlowEvent }) => isLocal(event),
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
