/**
 * What the actions and guards of a compiled flow share (actions.ts): the step entries, the rendering, the
 * timers, typed answers, running a route (its `set:`, `say:` and `do:`), the route of a button, command or
 * event, the answer read once per event, and a step's `next` entries.
 */
import type { FlowEvent } from '../engine/step/contract.ts';
import { eventRouteOf } from './event-steps.ts';
import { computeSet } from './expressions.ts';
import { type InputResult, readAnswer } from './inputs.ts';
import { type Enqueue, type FlowContext, nowOf, type StepEntry } from './machine-context.ts';
import type { Registry } from './registry.ts';
import { type Rendering, renderingFor } from './render.ts';
import type { Condition, FlowFile, InputStep, Route } from './schema.ts';
import { stepTimers } from './step-timers.ts';
import { isTagCall, type TagCall, tagEffect } from './tags.ts';
import { typedAnswers } from './typed-answers.ts';
import { readVar } from './vars.ts';

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
function routeOf(root: FlowFile, e: StepEntry, which: string): Route | undefined {
  const s = e.step;
  if (which === 'exhausted' && s.type === 'input') return s.retries.exhausted;
  if (which === 'idle' && 'idle' in s && s.idle) return { say: s.idle.say };
  if (which === 'on_text' && s.type === 'menu') return s.on_text;
  if (which === 'empty' && s.type === 'input') return s.options_from?.empty;
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

/** The condition of a step's `next` entry or branch case. */
function nextCondition(e: StepEntry, i: number): Condition | undefined {
  const s = e.step;
  if (s.type === 'branch') return s.cases[i]?.when;
  if ('next' in s && Array.isArray(s.next)) return s.next[i]?.when;
  return undefined;
}

/** The `set:` of a step's `next` entry or branch case. */
function nextSet(e: StepEntry, i: number): Readonly<Record<string, unknown>> | undefined {
  const s = e.step;
  if (s.type === 'branch') return s.cases[i]?.set;
  if ('next' in s && Array.isArray(s.next)) return s.next[i]?.set;
  return undefined;
}

/**
 * An input step's answer to an event, read once: several guards and then an action read the same answer
 * during one transition.
 */
function answerReader(
  registry: Registry,
  localeOf: Rendering['localeOf'],
  typed: ReturnType<typeof typedAnswers>,
) {
  const answers = new WeakMap<object, Map<string, InputResult>>();
  return (e: StepEntry, s: InputStep, event: FlowEvent, c: FlowContext): InputResult => {
    let byStep = answers.get(event);
    if (!byStep) {
      byStep = new Map();
      answers.set(event, byStep);
    }
    let r = byStep.get(e.key);
    if (!r) {
      r = readAnswer(s, event, {
        vars: c.vars,
        locale: localeOf(e, c),
        registry,
        now: nowOf(event),
        labels: typed.labelsFor(e, c),
        timeZone: typed.timeZoneOf(e, c),
        candidates: typed.candidatesFor(e, c),
        ...(e.flow.i18n ? { defaultLocale: e.flow.i18n.default_locale } : {}),
        ...(c.picked ? { picked: c.picked } : {}),
        ...(c.choices ? { choices: c.choices } : {}),
      });
      byStep.set(e.key, r);
    }
    return r;
  };
}

/** What the actions and guards of one compiled flow share. */
export function actionKit(
  steps: Map<string, StepEntry>,
  root: FlowFile,
  registry: Registry,
  usesEdit: boolean,
  baseDir: string,
) {
  const entry = (key: string) => steps.get(key)!;
  const globals = new Set(Object.keys(root.commands ?? {}));
  const rendering = renderingFor(root, usesEdit, baseDir);
  const { localeOf, say, effect } = rendering;
  const typed = typedAnswers({ localeOf, say, effect }, usesEdit);
  /** The variables with `set` applied ("= …" computed on the event's clock and the person's locale). */
  const setVars = (e: StepEntry, c: FlowContext, set: Readonly<Record<string, unknown>>, now: number) => ({
    ...c.vars,
    ...computeSet(set, c.vars, { now, locale: localeOf(e, c) }),
  });
  /** The choices of an `options_from` step: one per element of the list, its text and saved value. */
  const choicesOf = (e: StepEntry, from: NonNullable<InputStep['options_from']>, c: FlowContext) => {
    const list = readVar(c.vars, from.list);
    return (Array.isArray(list) ? list : []).map((item) => ({
      text: say(e, { ...c, vars: { ...c.vars, item } }, from.text ?? '{{item}}'),
      value: from.value ? (readVar({ item }, from.value) ?? null) : item,
    }));
  };
  return {
    root,
    registry,
    usesEdit,
    entry,
    globals,
    ...rendering,
    ...stepTimers(effect),
    typed,
    ...routeRunner(rendering, registry),
    routeOf: (e: StepEntry, which: string) => routeOf(root, e, which),
    answerFor: answerReader(registry, localeOf, typed),
    isLocal: (event: FlowEvent) => !(event.type === 'command' && globals.has(event.name)),
    nextCondition,
    nextSet,
    setVars,
    choicesOf,
  };
}

export type ActionKit = ReturnType<typeof actionKit>;
