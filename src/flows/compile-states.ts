/**
 * The states of a flow's steps (compile.ts): one state per step, written per kind of step — branch, end,
 * wait, message, input, handoff, menu and call (a called flow runs as nested states) — over the
 * transitions every waiting step shares (reminders, idle, buttons, events, intents).
 */
import { COMMANDS_ENTRY, RERENDER_EVENT, type StepEntry } from './actions.ts';
import type { comeBackSteps } from './come-back.ts';
import { conditionText } from './conditions.ts';
import { onEventOf } from './event-steps.ts';
import { handoffState } from './handoff-steps.ts';
import { type IntentTransitions, intentTransitions } from './intents.ts';
import type { FlowFile, InputStep, MenuStep, Route, Step } from './schema.ts';
import { taskOf, taskTransitions } from './task-steps.ts';
import type { TextRenderer } from './texts.ts';
import { typedMenuTransitions } from './typed-answers.ts';

export type StateConfig = Record<string, unknown>;
export const COMMANDS_KEY = COMMANDS_ENTRY;

export const act = (type: string, params: Record<string, unknown>) => ({ type, params });
export const guard = act;

/** What compiling one flow collects while its states are built. */
export interface Compiling {
  readonly flow: FlowFile;
  /** Other flows, for `call`. */
  readonly flows: Map<string, FlowFile>;
  readonly steps: Map<string, StepEntry>;
  /** Each step key's state path (`ask_address.street` for a step of a flow called by `ask_address`). */
  readonly paths: Map<string, string[]>;
  /** Flows called from buttons, commands and routes: they run beside the steps (compile.ts). */
  readonly calledFromRoutes: Set<string>;
  readonly returns: ReturnType<typeof comeBackSteps>;
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

/** A step with the flow's `defaults:` filled in (reminders and idle timeouts of input steps). */
export function withDefaults(f: FlowFile, step: Step): Step {
  const d = f.defaults;
  if (step.type !== 'input' || !d) return step;
  return {
    ...step,
    ...(step.remind === undefined && d.remind ? { remind: d.remind } : {}),
    ...(step.idle === undefined && d.idle ? { idle: d.idle } : {}),
  };
}

/** The states of the steps of `f`, keyed `prefix` + id (a called flow's steps under its caller's). */
export function buildStates(
  k: Compiling,
  f: FlowFile,
  prefix: string,
  chain: string[],
  parent: string[] = [],
): Record<string, StateConfig> {
  const topLevel = chain.length === 1;
  const states: Record<string, StateConfig> = {};
  for (const [id, raw] of Object.entries(f.steps)) {
    const step = withDefaults(f, raw);
    const key = `${prefix}${id}`;
    k.steps.set(key, { key, id, flow: f, step, text: k.rendererOf(f), format: f.format ?? 'html', topLevel });
    k.paths.set(key, [...parent, id]);
    if (('render' in step && step.render === 'edit') || f.defaults?.render === 'edit') k.usesEdit = true;
    states[id] = stateFor(k, k.paths.get(key)!.join('>'), key, step, prefix, chain);
  }
  return states;
}

/** A step being compiled: its key, where it sits, its entry and exit actions and its transitions so far. */
interface At {
  readonly k: Compiling;
  readonly key: string;
  readonly s: { step: string };
  readonly prefix: string;
  readonly chain: string[];
  readonly enter: unknown[];
  readonly leave: unknown[];
  readonly on: Record<string, unknown[]>;
  readonly add: (event: string, t: unknown) => void;
  readonly intents: IntentTransitions;
}

function stateFor(k: Compiling, path: string, key: string, step: Step, prefix: string, chain: string[]) {
  const s = { step: key };
  const takesEvents = Object.keys(onEventOf(step)).length > 0;
  const enter = [act('enter', { ...s, path }), ...(takesEvents ? [act('replayQueued', s)] : [])];
  if (step.type === 'branch') return branchState(s, step, enter);
  if (step.type === 'end') return { type: 'final', entry: enter };
  const at: At = {
    k,
    key,
    s,
    prefix,
    chain,
    enter,
    leave: [act('leave', s)],
    ...sharedTransitions(k, key, step),
  };
  if (step.type === 'wait') return waitState(at);
  if (step.type === 'message') return messageState(at, step);
  if (step.type === 'input') return inputState(at, step);
  if (step.type === 'handoff') return handoffState(key, step, at.enter, at.leave, act) as StateConfig;
  if (step.type === 'menu') return menuState(at, step);
  return callState(at, step);
}

/** A branch: nothing to draw, but entering is recorded (coverage counts branch steps and their routes). */
function branchState(s: { step: string }, step: Extract<Step, { type: 'branch' }>, enter: unknown[]) {
  return {
    entry: enter,
    always: [
      ...step.cases.map((c, i) => ({
        guard: guard('cond', { ...s, index: i, when: conditionText(c.when) }),
        target: c.goto,
        ...(c.set ? { actions: [act('nextSet', { ...s, index: i })] } : {}),
      })),
      { target: step.else },
    ],
  };
}

/** The transitions of every step that waits: reminders, idle, buttons, events, redrawing, intents' tasks. */
function sharedTransitions(k: Compiling, key: string, step: Step) {
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
  const intents = intentTransitions(k.flow, key, step, act);
  for (const ev of ['task.done', 'task.failed'] as const) for (const t of intents[ev]) add(ev, t);
  return { on, add, intents };
}

/** A wait: typed text does not move it on (unless an intent routes it): its text is said again. */
function waitState({ s, enter, leave, on, add, intents }: At) {
  for (const t of intents.message) add('message', t);
  add('message', { actions: [act('unrecognisedText', s), act('rerender', { ...s, fresh: true })] });
  return { entry: enter, exit: leave, on };
}

/** A message: moves on at once by its `next`, or waits for its task's result (task-steps.ts). */
function messageState({ key, s, enter, leave, on, add }: At, step: Extract<Step, { type: 'message' }>) {
  const next = typeof step.next === 'string' ? [{ goto: step.next }] : step.next;
  const task = taskOf(step);
  if (task) {
    for (const [event, ts] of Object.entries(taskTransitions(key, task, next, act)))
      for (const t of ts) add(event, t);
    return { entry: [...enter, act('taskStart', s)], exit: leave, on };
  }
  return {
    entry: enter,
    exit: leave,
    on,
    always:
      typeof step.next === 'string'
        ? [{ target: step.next }]
        : next.map((n, i) => ({
            guard: guard('cond', { ...s, index: i, when: n.when ? conditionText(n.when) : undefined }),
            target: n.goto,
            ...('set' in n && n.set ? { actions: [act('nextSet', { ...s, index: i })] } : {}),
          })),
  };
}

/** An input's transitions for an answer: intents first, a `come_back` return, its `next`, a refusal. */
function answerTransitions({ k, key, s, prefix, chain, intents }: At, step: InputStep) {
  const next = typeof step.next === 'string' ? [{ goto: step.next }] : step.next;
  const ex = step.retries.exhausted;
  if (ex.call) k.calledFromRoutes.add(ex.call);
  const comeBack = chain.length === 1 && prefix === '' && k.returns.edited.has(key);
  return [
    ...intents.first,
    // After an edit from a summary (`come_back: true`), an accepted answer returns to the summary.
    ...(comeBack
      ? [
          {
            guard: guard('answer', { ...s, back: true }),
            target: `#${k.flow.flow}.__back`,
            actions: [act('accept', s)],
          },
        ]
      : []),
    ...next.map((n, i) => ({
      guard: guard(
        'answer',
        typeof step.next === 'string'
          ? s
          : { ...s, index: i, ...('when' in n && n.when ? { when: conditionText(n.when) } : {}) },
      ),
      target: n.goto,
      actions: [act('accept', s), ...('set' in n && n.set ? [act('nextSet', { ...s, index: i })] : [])],
    })),
    ...intents.message,
    {
      guard: guard('exhausted', s),
      ...(ex.call ? { target: `#${k.flow.flow}.__call_${ex.call}` } : ex.goto ? { target: ex.goto } : {}),
      actions: [act('reject', { ...s, last: true })],
    },
    { guard: guard('answerEvent', s), actions: [act('reject', s)] },
  ];
}

/** An input: typed answers, and pressed options (toggled, or a page of an `options_from` list turned). */
function inputState(at: At, step: InputStep) {
  const { k, key, s, enter, leave, on, add } = at;
  const answers = answerTransitions(at, step);
  for (const t of answers) add('message', t);
  // Commands are never answers: the flow's own commands and the refusal of others live at the root.
  if (step.options) {
    add('button', { guard: guard('toggle', s), actions: [act('toggle', s)] });
    for (const t of answers) add('button', t);
  }
  if (step.options_from) {
    // ‹ and › turn the page in place; a choice is an answer like a typed one.
    add('button', { guard: guard('pageTurn', s), actions: [act('turnPage', s)] });
    for (const t of answers) add('button', t);
    const empty = step.options_from.empty;
    if (empty?.call) k.calledFromRoutes.add(empty.call);
    const always = empty
      ? [{ guard: guard('noChoices', s), ...routeTransition(k, key, 'empty', empty) }]
      : undefined;
    return { entry: enter, exit: leave, on, ...(always ? { always } : {}) };
  }
  return { entry: enter, exit: leave, on };
}

/** A menu: typed text naming a button, an intent, else its `on_text` (or it is drawn again). */
function menuState({ k, key, s, enter, leave, on, add, intents }: At, step: MenuStep) {
  const byRoute: Parameters<typeof typedMenuTransitions>[2] = (key, route, b) =>
    routeTransition(k, key, route, b);
  for (const t of typedMenuTransitions(key, step.keyboard, byRoute)) add('message', t);
  for (const t of intents.message) add('message', t);
  // Typed text that named no button and no intent: the funnel counts it (`input.unrecognised`).
  const heard = act('unrecognisedText', s);
  const text = step.on_text
    ? routeTransition(k, key, 'on_text', step.on_text)
    : { actions: [act('rerender', { ...s, fresh: true })] };
  add('message', { ...text, actions: [heard, ...text.actions] });
  return { entry: enter, exit: leave, on };
}

/** A call: the called flow runs as nested states; its end continues at `next`. */
function callState(
  { k, key, s, prefix, chain, enter, leave, on }: At,
  step: Extract<Step, { type: 'call' }>,
) {
  const callee = k.flows.get(step.flow)!;
  return {
    entry: enter,
    exit: leave,
    on,
    initial: callee.start,
    states: buildStates(k, callee, `${prefix}${step.flow}>`, [...chain, step.flow], k.paths.get(key)),
    onDone: { target: step.next, actions: [act('called', s)] },
  };
}
