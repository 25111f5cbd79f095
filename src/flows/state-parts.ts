/**
 * What compiling a step's state works with (compile-states.ts): the compilation's collections, the named
 * actions and guards, a route's transition, and the transitions every waiting step shares (reminders,
 * idle, buttons, events, redrawing, intents' tasks), written once for every kind. A kind's `state`
 * (kinds/<kind>/index.ts) builds its XState state from a `StepState`.
 */
import { onEventOf } from './event-steps.ts';
import { type IntentTraits, type IntentTransitions, intentTransitions } from './intents.ts';
import type { FlowFile, Step } from './kinds/steps.ts';
import { COMMANDS_ENTRY, RERENDER_EVENT, type StepEntry } from './machine-context.ts';
import type { Route } from './schema-parts.ts';
import type { TextRenderer } from './texts.ts';

/**
 * The `come_back: true` routes of a flow (come-back.ts): the steps they leave from (where an edit returns
 * to) and the steps they edit.
 */
export interface ComeBack {
  from: string[];
  edited: Set<string>;
}

export type StateConfig = Record<string, unknown>;
export const COMMANDS_KEY = COMMANDS_ENTRY;

export const act = (type: string, params: Record<string, unknown>) => ({ type, params });
export const guard = act;

/** What compiling one flow collects while its states are built. */
export interface Compiling {
  /** Builds the states of a flow's steps (a called flow's are nested in its caller's `call` step). */
  readonly buildStates: (
    f: FlowFile,
    prefix: string,
    chain: string[],
    parent?: string[],
  ) => Record<string, StateConfig>;
  readonly flow: FlowFile;
  /** Other flows, for `call`. */
  readonly flows: Map<string, FlowFile>;
  readonly steps: Map<string, StepEntry>;
  /** Each step key's state path (`ask_address.street` for a step of a flow called by `ask_address`). */
  readonly paths: Map<string, string[]>;
  /** Flows called from buttons, commands and routes: they run beside the steps (compile.ts). */
  readonly calledFromRoutes: Set<string>;
  readonly returns: ComeBack;
  readonly rendererOf: (f: FlowFile) => TextRenderer;
  /** Whether a step redraws its message in place (`render: edit`). */
  usesEdit: boolean;
}

/** A route's transition: to its `call`'s flow, or its `goto` (`target` when given), with the `route` action. */
export function routeTransition(k: Compiling, key: string, r: string, route: Route, target?: string) {
  return {
    ...(route.call
      ? { target: `#${k.flow.flow}.__call_${route.call}` }
      : route.goto
        ? { target: target ?? route.goto }
        : {}),
    actions: [act('route', { step: key, route: r })],
  };
}

/** The transitions of a step that waits, as `sharedTransitions` builds them. */
export interface Waiting {
  /** Exit actions (the step's timers are cancelled). */
  readonly leave: unknown[];
  readonly on: Record<string, unknown[]>;
  readonly add: (event: string, t: unknown) => void;
  readonly intents: IntentTransitions;
}

/** A step being compiled: its key, where it sits, its entry actions, and (for a step that waits) its shared transitions. */
export interface StepState {
  readonly k: Compiling;
  readonly key: string;
  readonly s: { step: string };
  readonly prefix: string;
  readonly chain: string[];
  readonly enter: unknown[];
  /** The transitions every waiting step shares, built on first use (a branch or an end has none). */
  readonly waiting: () => Waiting;
}

/** The transitions of every step that waits: reminders, idle, buttons, events, redrawing, intents' tasks. */
export function sharedTransitions(k: Compiling, key: string, step: Step, kind: IntentTraits) {
  const s = { step: key };
  const on: Record<string, unknown[]> = {};
  const add = (event: string, t: unknown) => {
    if (!on[event]) on[event] = [];
    on[event].push(t);
  };
  if ('remind' in step) {
    (step.remind ?? []).forEach((_, i) => {
      add('timer', {
        guard: guard('timer', { name: `${key}:remind:${i}` }),
        actions: [act('remind', { ...s, index: i })],
      });
    });
  }
  if ('idle' in step && step.idle) {
    add('timer', {
      guard: guard('timer', { name: `${key}:idle` }),
      target: step.idle.goto,
      actions: [act('route', { ...s, route: 'idle' })],
    });
  }
  const buttons = 'keyboard' in step ? (step.keyboard ?? []).flat().filter((b) => b.id) : [];
  for (const b of buttons) {
    if (b.call) k.calledFromRoutes.add(b.call);
    add('button', { guard: guard('button', { id: b.id }), ...routeTransition(k, key, `button:${b.id}`, b) });
  }
  for (const [name, route] of Object.entries(onEventOf(step))) {
    if (route.call) k.calledFromRoutes.add(route.call);
    add('event', { guard: guard('event', { name }), ...routeTransition(k, key, `event:${name}`, route) });
  }
  add(RERENDER_EVENT, { actions: [act('rerender', s)] });
  const intents = intentTransitions(k.flow, key, step, kind, act);
  for (const ev of ['task.done', 'task.failed'] as const) for (const t of intents[ev]) add(ev, t);
  return { on, add, intents };
}
