import { assign } from 'xstate';
import { EFFECT_ACTION, ENTERED_ACTION, type FlowEvent } from '../engine/step/contract.ts';
import { type ActionKit, actionKit } from './action-kit.ts';
import { builtinText } from './builtin-texts.ts';
import { designerParts } from './designer-actions.ts';
import { eventParts, withEventPayload } from './event-steps.ts';
import { guardsFor } from './guards.ts';
import { intentParts } from './intents.ts';
import type { KindOf, KindParts } from './kinds/contract.ts';
import {
  type Args,
  COMMANDS_ENTRY,
  type FlowContext,
  flowAction,
  flowGuard,
  nowOf,
  type StepEntry,
  type StepParams,
} from './machine-context.ts';
import type { Registry } from './registry.ts';
import type { FlowFile } from './schema.ts';
import { tagEffect } from './tags.ts';
import { taskParts } from './task-steps.ts';

export type { Args, Enqueue, FlowContext, StepEntry } from './machine-context.ts';
export { COMMANDS_ENTRY, RERENDER_EVENT } from './machine-context.ts';
export { RENDER_REF } from './render.ts';

type P = StepParams;

/** Entering a step: its `set:`, its choices, its message and keyboard, its tags and effects, its timers. */
function enterAction(k: ActionKit) {
  const { entry, kindOf, setVars, say, render, effect, runEffects, arm } = k;
  return flowAction(({ context, event, enqueue }: Args, p: P) => {
    // For the step log: a step left again in the same event (a branch) is still one the person passed.
    enqueue({ type: ENTERED_ACTION, params: { step: p.path ?? p.step } });
    const e = entry(p.step);
    const s = e.step;
    const kind = kindOf(s);
    // What the kind sets first (a call's `with:`, an end's `return:`).
    const called = kind.entering ? kind.entering(s, context, enqueue) : context;
    // The step's own `set:` comes first, so its text and keyboard read the values.
    const stepSet = 'set' in s ? s.set : undefined;
    const entered = stepSet ? { ...called, vars: setVars(e, called, stepSet, nowOf(event)) } : called;
    if (stepSet) enqueue.assign({ vars: entered.vars });
    // A step with choices (`options_from`) copies its list now (a press carries only an index); others drop it.
    const choices = kind.choices?.(s, e, entered, say);
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
  });
}

/** Leaving a step, drawing it again, taking a route, a reminder. */
function movingActions(k: ActionKit) {
  const { entry, timersOf, effect, render, usesEdit, routeOf, runRoute, send, say } = k;
  return {
    leave: flowAction(({ enqueue }: Args, p: P) => {
      for (const t of timersOf(entry(p.step))) effect(enqueue, { kind: 'timer.cancel', name: t.name });
    }),
    rerender: flowAction(({ context, enqueue }: Args, p: P) => {
      render(entry(p.step), context, enqueue, p.fresh === true);
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
  };
}

/** The `set:` of the way out taken. */
function wayOutActions(k: ActionKit) {
  const { entry, nextSet, setVars } = k;
  return {
    // `set:` on the `next` entry or branch case taken (after the answer is saved by `accept`).
    nextSet: flowAction(({ context, event, enqueue }: Args, p: P) => {
      const e = entry(p.step);
      const set = nextSet(e, p.index ?? 0);
      if (set) enqueue.assign({ vars: setVars(e, context, set, nowOf(event)) });
    }),
  };
}

/** The flow failed at run time: its `on_error` route, or a built-in apology. */
function failureActions(k: ActionKit) {
  const { entry, root, runRoute, say, localeOf, send } = k;
  return {
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
  };
}

/** The context set from an event alone: a jump's variables, a restart, the id of the message sent. */
function contextAssigns(root: FlowFile) {
  const startedWith = (root.triggers ?? []).flatMap((t) => (t.event && t.save_as ? [t.save_as] : []));
  return {
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
}

/** The parts of the kinds of the flow's steps (a called flow's too), each kind's built once. */
function kindParts(k: ActionKit, steps: Map<string, StepEntry>) {
  const kinds = new Set([...steps.values()].map((e) => k.kindOf(e.step)));
  const parts: KindParts[] = [...kinds].flatMap((kind) => (kind.parts ? [kind.parts(k)] : []));
  return {
    actions: Object.assign({}, ...parts.map((p) => p.actions ?? {})) as Record<string, unknown>,
    guards: Object.assign({}, ...parts.map((p) => p.guards ?? {})) as Record<string, unknown>,
  };
}

/** Builds the named actions and guards of a compiled flow; `kindOf` finds a step's kind (kinds/registry.ts). */
export function actionsFor(
  steps: Map<string, StepEntry>,
  root: FlowFile,
  registry: Registry,
  usesEdit: boolean,
  baseDir: string,
  kindOf: KindOf,
) {
  const k = actionKit(steps, root, registry, usesEdit, baseDir, kindOf);
  const { entry, localeOf, say, send, effect, runRoute, nextCondition, render, globals } = k;
  const tasks = taskParts({ entry, localeOf, say, send, effect, runRoute, nextCondition, registry });
  const intents = intentParts({ entry, kindOf, root, localeOf, effect, render, runRoute });
  const designer = designerParts({ entry, say, send, root, globals });
  const outside = eventParts(entry);
  const kinds = kindParts(k, steps);
  const actions = {
    [EFFECT_ACTION]: () => {},
    [ENTERED_ACTION]: () => {},
    enter: enterAction(k),
    ...designer.actions,
    ...tasks.actions,
    ...intents.actions,
    ...outside.actions,
    ...kinds.actions,
    ...movingActions(k),
    ...wayOutActions(k),
    ...failureActions(k),
    ...contextAssigns(root),
  };

  const failed = (event: FlowEvent) => event.type === 'botflow.failed' && event.builtin !== true;
  const flowGuards = guardsFor({
    entry,
    localeOf,
    isLocal: k.isLocal,
    nextCondition,
    registry,
    designer: {
      ...designer.guards,
      ...tasks.guards,
      ...intents.guards,
      ...outside.guards,
      ...kinds.guards,
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
