import { assign } from 'xstate';
import { EFFECT_ACTION, ENTERED_ACTION, type FlowEvent } from '../engine/step/contract.ts';
import { builtinText } from './builtin-texts.ts';
import { COMMANDS_ENTRY, designerParts, enterCall } from './designer-actions.ts';
import { eventParts, eventRouteOf, withEventPayload } from './event-steps.ts';
import { computeSet } from './expressions.ts';
import { guardsFor } from './guards.ts';
import { handoffParts } from './handoff-steps.ts';
import { type InputResult, pageOf, pressedId, readAnswer, type SayText } from './inputs.ts';
import { intentParts } from './intents.ts';
import {
  type Args,
  type Enqueue,
  type FlowContext,
  flowAction,
  flowGuard,
  nowOf,
  type StepEntry,
  type StepParams,
} from './machine-context.ts';
import type { Registry } from './registry.ts';
import { renderingFor } from './render.ts';
import type { Condition, FlowFile, InputStep, Route } from './schema.ts';
import { stepTimers } from './step-timers.ts';
import { isTagCall, type TagCall, tagEffect } from './tags.ts';
import { taskParts } from './task-steps.ts';
import { typedAnswers } from './typed-answers.ts';
import { readVar } from './vars.ts';

export { RENDER_REF } from './render.ts';
export const RERENDER_EVENT = 'botflow.rerender';
export { COMMANDS_ENTRY } from './designer-actions.ts';
export type { Args, Enqueue, FlowContext, StepEntry } from './machine-context.ts';

/** Builds the named actions and guards of a compiled flow. */
export function actionsFor(
  steps: Map<string, StepEntry>,
  root: FlowFile,
  registry: Registry,
  usesEdit: boolean,
  baseDir: string,
) {
  const entry = (key: string) => steps.get(key)!;
  const globals = new Set(Object.keys(root.commands ?? {}));
  const { localeOf, say, doneText, effect, send, keyboardOf, render } = renderingFor(root, usesEdit, baseDir);
  const scope = (c: FlowContext, e: StepEntry, now: number, params?: Record<string, unknown>) => ({
    vars: c.vars,
    locale: localeOf(e, c),
    params: params ?? {},
    now,
  });
  const { timersOf, arm } = stepTimers(effect);
  const typed = typedAnswers({ localeOf, say, effect }, usesEdit);
  const runEffects = (
    e: StepEntry,
    c: FlowContext,
    calls:
      | readonly ({ effect: string; params?: Record<string, unknown> } | { task: string } | TagCall)[]
      | undefined,
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
  const routeOf = (e: StepEntry, which: string): Route | undefined => {
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
  };
  // Several guards and then an action read the same answer during one transition: parse it once.
  const answers = new WeakMap<object, Map<string, InputResult>>();
  const answerFor = (e: StepEntry, s: InputStep, event: FlowEvent, c: FlowContext): InputResult => {
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
  const isLocal = (event: FlowEvent) => !(event.type === 'command' && globals.has(event.name));
  const nextCondition = (e: StepEntry, i: number): Condition | undefined => {
    const s = e.step;
    if (s.type === 'branch') return s.cases[i]?.when;
    if ('next' in s && Array.isArray(s.next)) return s.next[i]?.when;
    return undefined;
  };
  /** The `set:` of a step's `next` entry or branch case. */
  const nextSet = (e: StepEntry, i: number): Readonly<Record<string, unknown>> | undefined => {
    const s = e.step;
    if (s.type === 'branch') return s.cases[i]?.set;
    if ('next' in s && Array.isArray(s.next)) return s.next[i]?.set;
    return undefined;
  };
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

  type P = StepParams;
  const tasks = taskParts({ entry, localeOf, say, send, effect, runRoute, nextCondition, registry });
  const intents = intentParts({ entry, root, localeOf, effect, render, runRoute });
  const designer = designerParts({ entry, say, keyboardOf, effect, send, root, globals });
  const outside = eventParts(entry);
  const handoff = handoffParts({ entry, say: (e, c, text) => say(e, c, text), effect });
  const startedWith = (root.triggers ?? []).flatMap((t) => (t.event && t.save_as ? [t.save_as] : []));
  const actions = {
    [EFFECT_ACTION]: () => {},
    [ENTERED_ACTION]: () => {},
    enter: flowAction(({ context, event, enqueue }: Args, p: P) => {
      // For the step log: a step left again in the same event (a branch) is still one the person passed.
      enqueue({ type: ENTERED_ACTION, params: { step: p.path ?? p.step } });
      const e = entry(p.step);
      const s = e.step;
      const called = enterCall(s, context, enqueue);
      // The step's own `set:` comes first, so its text and keyboard read the values.
      const stepSet = 'set' in s ? s.set : undefined;
      const entered = stepSet ? { ...called, vars: setVars(e, called, stepSet, nowOf(event)) } : called;
      if (stepSet) enqueue.assign({ vars: entered.vars });
      // An `options_from` step copies its list now (a press carries only an index); other steps drop it.
      const choices =
        s.type === 'input' && s.options_from ? choicesOf(e, s.options_from, entered) : undefined;
      const c = { ...entered, choices, page: 0 };
      enqueue.assign({ retries: 0, picked: [], choices, page: 0, ...(e.topLevel ? { at: e.id } : {}) });
      // An empty list takes the step's `empty` route at once (the eventless transition compile.ts adds).
      if (choices?.length === 0) return;
      // A `come_back` edit is over once the conversation goes anywhere but the step being edited.
      if (e.topLevel && c.back !== undefined && c.editing !== e.id)
        enqueue.assign({ back: undefined, editing: undefined });
      // `render: edit` redraws the message whose button was pressed; anything else (a typed answer, a
      // command, a timer) gets a new message below, so nothing the person answered is rewritten above them.
      render(e, { ...c, picked: [] }, enqueue, (event as { type?: string }).type !== 'button');
      const tags = 'tag' in s || 'untag' in s ? tagEffect(s) : undefined;
      if (tags) effect(enqueue, tags);
      runEffects(e, c, 'do' in s ? s.do : undefined, enqueue, nowOf(event));
      arm(e, enqueue);
    }),
    ...designer.actions,
    ...tasks.actions,
    ...intents.actions,
    ...outside.actions,
    ...handoff.actions,
    leave: flowAction(({ enqueue }: Args, p: P) => {
      for (const t of timersOf(entry(p.step))) effect(enqueue, { kind: 'timer.cancel', name: t.name });
    }),
    rerender: flowAction(({ context, enqueue }: Args, p: P) => {
      render(entry(p.step), context, enqueue, p.fresh === true);
    }),
    // A press on ‹ or › of an `options_from` keyboard: the same message shows another page of choices.
    turnPage: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const page = event.type === 'button' ? pageOf(pressedId(event)) : undefined;
      if (page === undefined) return;
      enqueue.assign({ page });
      const mid = event.type === 'button' ? event.message?.body.mid : undefined;
      render(entry(p.step), { ...context, page, ...(mid ? { mid } : {}) }, enqueue, false, mid !== undefined);
    }),
    route: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const c =
        event.type === 'button' && event.message?.body.mid && usesEdit
          ? { ...context, mid: event.message.body.mid }
          : context;
      if (c !== context) enqueue.assign({ mid: c.mid });
      else if (event.type !== 'button' && context.mid) enqueue.assign({ mid: undefined });
      const withValue =
        event.type === 'button' && event.value !== undefined
          ? { ...c, vars: { ...c.vars, button_value: event.value } }
          : withEventPayload(c, routeOf(e, p.route ?? ''), event);
      if (withValue !== c) enqueue.assign({ vars: withValue.vars });
      runRoute(e, withValue, routeOf(e, p.route ?? ''), enqueue, nowOf(event));
    }),
    remind: flowAction(({ context, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const s = e.step;
      const r = 'remind' in s ? s.remind?.[p.index ?? 0] : undefined;
      if (r) send(enqueue, e, say(e, context, r.say));
    }),
    accept: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const s = e.step;
      if (s.type !== 'input') return;
      const r = answerFor(e, s, event, context);
      if (r.ok && s.save) enqueue.assign({ vars: { ...context.vars, [s.save]: r.value }, retries: 0 });
      // After a typed answer, the next step is a new message below it: `render: edit` only replaces a
      // message whose button was pressed.
      if (event.type === 'button' && event.message?.body.mid && usesEdit)
        enqueue.assign({ mid: event.message.body.mid });
      else if (event.type !== 'button') enqueue.assign({ mid: undefined });
    }),
    reject: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const s = e.step;
      if (s.type !== 'input') return;
      const r = answerFor(e, s, event, context);
      if (r.ok) return;
      // An answer that fits several options is asked about, not refused: no retry is counted.
      if (r.clarify) {
        if (event.type !== 'button') enqueue.assign({ mid: undefined });
        typed.clarify(enqueue, e, context, r.clarify);
        arm(e, enqueue);
        return;
      }
      effect(enqueue, { kind: 'input.rejected' });
      // Typed text that picked none of a choice step's options: the funnel counts it with a sample.
      if (event.type === 'message' && event.text?.trim() && (s.options || s.options_from))
        effect(enqueue, { kind: 'input.unrecognised', text: event.text });
      enqueue.assign({
        retries: context.retries + 1,
        ...(event.type !== 'button' ? { mid: undefined } : {}),
      });
      const error: SayText =
        'builtin' in r.error && r.error.builtin === 'error-multi_choice'
          ? { builtin: 'error-multi_choice', args: { done: doneText(e, context) } }
          : r.error;
      send(enqueue, e, say(e, context, error));
      if (p.last) runRoute(e, context, s.retries.exhausted, enqueue, nowOf(event));
      else arm(e, enqueue);
    }),
    // A menu's typed text that fits several of its buttons: which one was meant?
    clarifyMenu: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const m = typed.menuAnswerFor(e, event, context);
      if (m.kind !== 'ambiguous') return;
      if (context.mid) enqueue.assign({ mid: undefined });
      typed.clarify(enqueue, e, context, m.ids);
      arm(e, enqueue);
    }),
    // `set:` on the `next` entry or branch case taken (after the answer is saved by `accept`).
    nextSet: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const set = nextSet(e, p.index ?? 0);
      if (set) enqueue.assign({ vars: setVars(e, context, set, nowOf(event)) });
    }),
    // The flow failed at run time (failure.ts): the failing step's `on_error` route, else the flow's.
    failedRoute: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const s = e.step;
      const route = p.step === COMMANDS_ENTRY ? root.on_error : 'on_error' in s ? s.on_error : undefined;
      enqueue.assign({ retries: 0, queued: undefined });
      runRoute(e, context, route, enqueue, nowOf(event));
    }),
    // No route of the flow's own (or it failed too): a built-in apology, then the flow ends (compile.ts).
    apologize: flowAction(({ context, event, enqueue }: Args) => {
      const e = entry(COMMANDS_ENTRY);
      const builtin = event.type === 'botflow.failed' && event.builtin === true;
      let text: string;
      try {
        // Plain Error: control flow to the catch below, never seen outside.
        if (builtin) throw new Error('only the built-in text is left');
        text = say(e, context, { builtin: 'flow-failed' });
      } catch {
        text = builtinText('flow-failed', localeOf(e, context));
      }
      send(enqueue, e, text);
    }),
    jumpVars: assign(({ event }: { event: FlowEvent }) => ({
      vars: event.type === 'botflow.jump' ? { ...event.vars } : {},
      retries: 0,
    })),
    // Start pressed mid-flow: the flow begins again with what started it (an event trigger's `save_as`,
    // which its first steps read), or the new deep link's payload; the rest is forgotten.
    restart: assign(({ event, context }: { event: FlowEvent; context: FlowContext }) => ({
      vars: {
        ...Object.fromEntries(
          startedWith.filter((name) => name in context.vars).map((name) => [name, context.vars[name]]),
        ),
        ...(event.type === 'bot_started' && event.payload ? { start_payload: event.payload } : {}),
      },
      retries: 0,
      // Outside events queued for the run the person left (`while_elsewhere: queue`) go with it.
      events: undefined,
    })),
    keepMessageId: assign(({ event, context }: { event: FlowEvent; context: FlowContext }) => {
      const result =
        event.type === 'effect.done'
          ? (event.result as { message?: { body?: { mid?: string } } })
          : undefined;
      return { mid: result?.message?.body?.mid ?? context.mid };
    }),
  };

  const failed = (event: FlowEvent) => event.type === 'botflow.failed' && event.builtin !== true;
  const flowGuards = guardsFor({
    entry,
    localeOf,
    answerFor,
    menuAnswerFor: typed.menuAnswerFor,
    isLocal,
    nextCondition,
    registry,
    designer: {
      ...designer.guards,
      ...tasks.guards,
      ...intents.guards,
      ...outside.guards,
      ...handoff.guards,
      failedAt: ({ event }: { event: FlowEvent }, p: P) =>
        failed(event) && (event as { step?: string }).step === p.step,
      failedHere: ({ event }: { event: FlowEvent }) => failed(event),
    },
  });
  // Anything a guard throws is the flow's failure at the guard's step (machine-context.ts).
  const guards = Object.fromEntries(
    Object.entries(flowGuards).map(([name, g]) => [name, flowGuard(g as (a: unknown, p: P) => boolean)]),
  );
  return { actions, guards, say, localeOf };
}
