/**
 * What the actions and guards of a compiled flow share (actions.ts): the step entries and their kinds, the
 * rendering, the timers, typed answers, running a route (its `set:`, `say:` and `do:`), the route of a
 * button, command or event, and a step's `next` entries. A kind's own parts (kinds/contract.ts, `parts`)
 * are built over it.
 */
import type { FlowEvent } from '../engine/step/contract.ts';
import { eventRouteOf } from './event-steps.ts';
import { computeSet } from './expressions.ts';
import type { KindOf, RunKit } from './kinds/contract.ts';
import type { Enqueue, FlowContext, StepEntry } from './machine-context.ts';
import type { Registry } from './registry.ts';
import { type Rendering, renderingFor } from './render.ts';
import type { Condition, FlowFile, Route } from './schema.ts';
import { stepTimers } from './step-timers.ts';
import { isTagCall, type TagCall, tagEffect } from './tags.ts';
import { typedAnswers } from './typed-answers.ts';

type EffectCalls = readonly (
  | { effect: string; params?: Record<string, unknown> }
  | { task: string }
  | TagCall
)[];

/** Runs a route: its `set:`, then `come_back`, its `say:` and its `do:` effects. */
function routeRunner(rendering: Rendering, registry: Registry) {
  const { localeOf, say, effect, send } = rendering;
  const scope = (c: FlowContext, e: StepEntry, now: number, params?: Record<string, unknown>) => ({
    vars: c.vars,
    locale: localeOf(e, c),
    params: params ?? {},
    now,
  });
  const runEffects = (
    e: StepEntry,
    c: FlowContext,
    calls: EffectCalls | undefined,
    enqueue: Enqueue,
    now: number,
  ) => {
    for (const call of calls ?? []) {
      const tags = isTagCall(call) ? tagEffect(call) : undefined;
      if (tags) effect(enqueue, tags);
      if (!('effect' in call)) continue; // a task: started by the step's own `taskStart` (task-steps.ts)
      const factory = registry.effects[call.effect];
      if (!factory) continue;
      const out = factory(scope(c, e, now, call.params));
      for (const x of Array.isArray(out) ? out : [out]) effect(enqueue, x);
    }
  };
  const runRoute = (
    e: StepEntry,
    c: FlowContext,
    route: Route | undefined,
    enqueue: Enqueue,
    now: number,
  ) => {
    if (!route) return c;
    // `set:` values written "= …" are computed over the variables, on the event's clock and locale.
    const next = route.set
      ? { ...c, vars: { ...c.vars, ...computeSet(route.set, c.vars, { now, locale: localeOf(e, c) }) } }
      : c;
    if (route.set) enqueue.assign({ vars: next.vars });
    if (route.come_back && route.goto && e.topLevel) enqueue.assign({ back: e.id, editing: route.goto });
    else if (route.goto && c.back !== undefined) enqueue.assign({ back: undefined, editing: undefined });
    if (route.say) send(enqueue, e, say(e, next, route.say));
    runEffects(e, next, route.do, enqueue, now);
    return next;
  };
  return { runEffects, runRoute };
}

/** The route a transition names (`button:<id>`, `command:<name>`, `exhausted`, an event's…) at a step. */
function routeOf(root: FlowFile, kindOf: KindOf, e: StepEntry, which: string): Route | undefined {
  const s = e.step;
  const kind = kindOf(s);
  const own = kind.route?.(s, which);
  if (own) return own;
  if (which === 'idle' && 'idle' in s && s.idle) return { say: s.idle.say };
  if (which === 'on_text') return kind.onText?.(s);
  if (which.startsWith('button:') && 'keyboard' in s) {
    return s.keyboard?.flat().find((b) => b.id === which.slice(7));
  }
  if (which.startsWith('command:')) return root.commands?.[which.slice(8)];
  if (which.startsWith('elsewhere:')) {
    const w = root.events?.[which.slice(10)]?.while_elsewhere;
    return typeof w === 'object' ? w : undefined;
  }
  return eventRouteOf(s, which);
}

/** The i-th way out of a step that has a condition: its kind's (a branch case), else a `next` entry. */
function nextAt(kindOf: KindOf, e: StepEntry, i: number) {
  const s = e.step;
  const own = kindOf(s).nextAt;
  if (own) return own(s, i);
  return 'next' in s && Array.isArray(s.next) ? s.next[i] : undefined;
}

/** What the actions and guards of one compiled flow share. */
export function actionKit(
  steps: Map<string, StepEntry>,
  root: FlowFile,
  registry: Registry,
  usesEdit: boolean,
  baseDir: string,
  kindOf: KindOf,
) {
  const entry = (key: string) => steps.get(key)!;
  const globals = new Set(Object.keys(root.commands ?? {}));
  const rendering = renderingFor(root, usesEdit, baseDir, kindOf);
  const { localeOf, say, effect } = rendering;
  const typed = typedAnswers({ localeOf, say, effect }, usesEdit);
  /** The variables with `set` applied ("= …" computed on the event's clock and the person's locale). */
  const setVars = (e: StepEntry, c: FlowContext, set: Readonly<Record<string, unknown>>, now: number) => ({
    ...c.vars,
    ...computeSet(set, c.vars, { now, locale: localeOf(e, c) }),
  });
  const kit = {
    root,
    registry,
    usesEdit,
    entry,
    kindOf,
    globals,
    ...rendering,
    ...stepTimers(effect),
    typed,
    ...routeRunner(rendering, registry),
    routeOf: (e: StepEntry, which: string) => routeOf(root, kindOf, e, which),
    isLocal: (event: FlowEvent) => !(event.type === 'command' && globals.has(event.name)),
    nextCondition: (e: StepEntry, i: number): Condition | undefined => nextAt(kindOf, e, i)?.when,
    nextSet: (e: StepEntry, i: number): Readonly<Record<string, unknown>> | undefined =>
      nextAt(kindOf, e, i)?.set,
    setVars,
  };
  return kit satisfies RunKit;
}

export type ActionKit = ReturnType<typeof actionKit>;
