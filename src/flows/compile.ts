/**
 * Compiles a validated flow file into an XState v5 machine and the engine's `FlowDefinition`.
 * The machine config is data: named actions and guards with JSON params; timers are `timer.arm` /
 * `timer.cancel` effects, never XState `after`. Flows named by `call` are inlined as nested states.
 */
import { type AnyStateMachine, setup } from 'xstate';
import type { FlowDefinition, FlowInput, StalePolicy } from '../engine/step/contract.ts';
import { actionsFor, COMMANDS_ENTRY, type FlowContext, RERENDER_EVENT, type StepEntry } from './actions.ts';
import { comeBackSteps } from './come-back.ts';
import { conditionText } from './conditions.ts';
import { elsewhereRoutes, eventDeclarations, onEventOf, startContext } from './event-steps.ts';
import { handoffDefinition, handoffState } from './handoff-steps.ts';
import { intentTransitions } from './intents.ts';
import { stepKeyOf } from './machine-context.ts';
import type { Registry } from './registry.ts';
import { computedOfFlows, failureTransitions, readsComputed, whereIs } from './run-time-failures.ts';
import type { FlowFile, Route, Step } from './schema.ts';
import { taskOf, taskTransitions } from './task-steps.ts';
import type { Catalog, TextRenderer } from './texts.ts';
import { textRenderer } from './texts.ts';
import { triggersOf } from './triggers.ts';
import { typedMenuTransitions } from './typed-answers.ts';
import { migrateSnapshot } from './versions.ts';

export { stepKeyOf } from './machine-context.ts';

/** Everything the compiler needs besides the file itself. */
export interface CompileContext {
  registry: Registry;
  /** Locale catalogs by locale. */
  catalogs: Map<string, Catalog>;
  /** Other flows, for `call`. */
  flows: Map<string, FlowFile>;
  /** Content versions of flows by id (a caller's version covers the flows it inlines). */
  version: string;
  /** Absolute folder that media paths are relative to. */
  baseDir?: string;
}

type StateConfig = Record<string, unknown>;
const COMMANDS_KEY = COMMANDS_ENTRY;

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

const act = (type: string, params: Record<string, unknown>) => ({ type, params });
const guard = act;

/** Builds the FlowDefinition of a flow file that passed the checks. */
export function buildDefinition(flow: FlowFile, cx: CompileContext): FlowDefinition {
  const steps = new Map<string, StepEntry>();
  const renderers = new Map<string, TextRenderer>();
  const rendererOf = (f: FlowFile) => {
    let r = renderers.get(f.flow);
    if (!r) {
      r = textRenderer(
        f.format ?? 'html',
        f.i18n ? { default_locale: f.i18n.default_locale, catalogs: cx.catalogs } : undefined,
      );
      renderers.set(f.flow, r);
    }
    return r;
  };
  let usesEdit = false;
  const calledFromRoutes = new Set<string>();

  const routeTransition = (key: string, r: string, route: Route, target?: string) => ({
    ...(route.call
      ? { target: `#${flow.flow}.__call_${route.call}` }
      : route.goto
        ? { target: target ?? route.goto }
        : {}),
    actions: [act('route', { step: key, route: r })],
  });

  /** Each step key's state path (`ask_address.street` for a step of a flow called by `ask_address`). */
  const paths = new Map<string, string[]>();
  /** Where an `on_error` route's goto leads from the step `key` (a step of the same flow). */
  const failureTarget = (key: string, goto: string) =>
    `#${flow.flow}.${[...(paths.get(key) ?? []).slice(0, -1), goto].join('.')}`;
  const buildStates = (
    f: FlowFile,
    prefix: string,
    chain: string[],
    parent: string[] = [],
  ): Record<string, StateConfig> => {
    const topLevel = chain.length === 1;
    const states: Record<string, StateConfig> = {};
    for (const [id, raw] of Object.entries(f.steps)) {
      const step = withDefaults(f, raw);
      const key = `${prefix}${id}`;
      steps.set(key, { key, id, flow: f, step, text: rendererOf(f), format: f.format ?? 'html', topLevel });
      paths.set(key, [...parent, id]);
      if (('render' in step && step.render === 'edit') || f.defaults?.render === 'edit') usesEdit = true;
      states[id] = stateFor(paths.get(key)!.join('>'), key, step, prefix, chain);
    }
    return states;
  };

  const stateFor = (path: string, key: string, step: Step, prefix: string, chain: string[]): StateConfig => {
    const s = { step: key };
    const takesEvents = Object.keys(onEventOf(step)).length > 0;
    const enter = [act('enter', { ...s, path }), ...(takesEvents ? [act('replayQueued', s)] : [])];
    const leave = [act('leave', s)];
    const on: Record<string, unknown[]> = {};
    const add = (event: string, t: unknown) => {
      if (!on[event]) on[event] = [];
      on[event].push(t);
    };
    if (step.type === 'branch') {
      return {
        // Nothing to draw, but entering is recorded (coverage counts branch steps and their routes).
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
    if (step.type === 'end') return { type: 'final', entry: enter };
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
      if (b.call) calledFromRoutes.add(b.call);
      add('button', { guard: guard('button', { id: b.id }), ...routeTransition(key, `button:${b.id}`, b) });
    }
    for (const [name, route] of Object.entries(onEventOf(step))) {
      if (route.call) calledFromRoutes.add(route.call);
      add('event', { guard: guard('event', { name }), ...routeTransition(key, `event:${name}`, route) });
    }
    add(RERENDER_EVENT, { actions: [act('rerender', s)] });
    const intents = intentTransitions(flow, key, step, act);
    for (const ev of ['task.done', 'task.failed'] as const) for (const t of intents[ev]) add(ev, t);
    if (step.type === 'wait') {
      // Typed text does not move a waiting step on (unless an intent routes it): its text is said again.
      for (const t of intents.message) add('message', t);
      add('message', { actions: [act('unrecognisedText', s), act('rerender', { ...s, fresh: true })] });
      return { entry: enter, exit: leave, on };
    }

    if (step.type === 'message') {
      const next = typeof step.next === 'string' ? [{ goto: step.next }] : step.next;
      const task = taskOf(step);
      if (task) {
        // The step waits for its task's result instead of moving on at once (task-steps.ts).
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
    if (step.type === 'input') {
      const next = typeof step.next === 'string' ? [{ goto: step.next }] : step.next;
      const ex = step.retries.exhausted;
      if (ex.call) calledFromRoutes.add(ex.call);
      const comeBack = chain.length === 1 && prefix === '' && returns.edited.has(key);
      const answers = [
        ...intents.first,
        // After an edit from a summary (`come_back: true`), an accepted answer returns to the summary.
        ...(comeBack
          ? [
              {
                guard: guard('answer', { ...s, back: true }),
                target: `#${flow.flow}.__back`,
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
          ...(ex.call ? { target: `#${flow.flow}.__call_${ex.call}` } : ex.goto ? { target: ex.goto } : {}),
          actions: [act('reject', { ...s, last: true })],
        },
        { guard: guard('answerEvent', s), actions: [act('reject', s)] },
      ];
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
        if (empty?.call) calledFromRoutes.add(empty.call);
        const always = empty
          ? [{ guard: guard('noChoices', s), ...routeTransition(key, 'empty', empty) }]
          : undefined;
        return { entry: enter, exit: leave, on, ...(always ? { always } : {}) };
      }
      return { entry: enter, exit: leave, on };
    }
    if (step.type === 'handoff') return handoffState(key, step, enter, leave, act) as StateConfig;
    if (step.type === 'menu') {
      for (const t of typedMenuTransitions(key, step.keyboard, routeTransition)) add('message', t);
      for (const t of intents.message) add('message', t);
      // Typed text that named no button and no intent: the funnel counts it (`input.unrecognised`).
      const heard = act('unrecognisedText', s);
      const text = step.on_text
        ? routeTransition(key, 'on_text', step.on_text)
        : { actions: [act('rerender', { ...s, fresh: true })] };
      add('message', { ...text, actions: [heard, ...text.actions] });
      return { entry: enter, exit: leave, on };
    }
    // call: the called flow runs as nested states; its end continues at `next`.
    const callee = cx.flows.get(step.flow)!;
    return {
      entry: enter,
      exit: leave,
      on,
      initial: callee.start,
      states: buildStates(callee, `${prefix}${step.flow}>`, [...chain, step.flow], paths.get(key)),
      onDone: { target: step.next, actions: [act('called', s)] },
    };
  };

  const returns = comeBackSteps(flow);
  const backs = returns.from.length > 0;
  const states = buildStates(flow, '', [flow.flow]);
  const rootOn: Record<string, unknown[]> = {
    'effect.done': [{ guard: guard('rendered', {}), actions: [act('keepMessageId', {})] }],
    bot_started: [{ target: `.${flow.start}`, reenter: true, actions: [act('restart', {})] }],
    command: Object.entries(flow.commands ?? {}).map(([name, route]) => {
      if (route.call) calledFromRoutes.add(route.call);
      return {
        guard: guard('command', { name }),
        ...routeTransition(COMMANDS_KEY, `command:${name}`, route, route.goto ? `.${route.goto}` : undefined),
        reenter: true,
      };
    }),
  };
  // An event the step does not take, with `while_elsewhere: { goto }`: the flow goes to that step.
  rootOn.event = elsewhereRoutes(flow).map(([name, route]) => ({
    guard: guard('event', { name }),
    ...routeTransition(COMMANDS_KEY, `elsewhere:${name}`, route, `.${route.goto}`),
    reenter: true,
  }));
  // An event no step here takes, under `while_elsewhere: queue`: kept until a step that takes it is entered.
  rootOn['botflow.queue'] = [{ guard: guard('canQueue', {}), actions: [act('queueEvent', {})] }];
  // A designer's jump (the playground's "start here"): the step is entered again with the given variables.
  rootOn['botflow.jump'] = Object.keys(flow.steps).map((id) => ({
    guard: guard('jumpTo', { step: id }),
    target: `.${id}`,
    reenter: true,
    actions: [act('jumpVars', {})],
  }));
  // Any other command: another flow's (or an unknown one) is refused with a word on how to leave.
  rootOn.command!.push({ guard: guard('foreignCommand', {}), actions: [act('refuseCommand', {})] });
  if (backs) {
    states.__back = {
      always: returns.from.map((id) => ({
        guard: guard('backTo', { step: id }),
        target: id,
        actions: [act('comeBack', {})],
      })),
    };
  }
  // Flows called from buttons or commands run beside the steps and return to the step they were called from.
  for (const callee of calledFromRoutes) {
    const f = cx.flows.get(callee)!;
    states[`__call_${callee}`] = {
      initial: f.start,
      states: buildStates(f, `__call_${callee}>`, [flow.flow, callee], [`__call_${callee}`]),
      onDone: { target: '__return' },
    };
  }
  if (calledFromRoutes.size) {
    states.__return = {
      always: Object.entries(flow.steps)
        .filter(([, step]) => ['input', 'menu', 'wait', 'call'].includes(step.type))
        .map(([id]) => ({ guard: guard('returnTo', { step: id }), target: id })),
    };
  }
  // The flow failed at run time: the failing step's on_error, the flow's, else an apology and the end.
  rootOn['botflow.failed'] = failureTransitions(flow, steps, failureTarget);
  states.__failed = { type: 'final' };
  // A global command's `route` action reads the command from the flow itself.
  steps.set(COMMANDS_KEY, {
    key: COMMANDS_KEY,
    id: flow.flow,
    flow,
    step: { type: 'end' },
    text: rendererOf(flow),
    format: flow.format ?? 'html',
    topLevel: false,
  });

  const implementations = actionsFor(steps, flow, cx.registry, usesEdit, cx.baseDir ?? process.cwd());
  // Built from data: XState's types cannot follow it (`as never`); xstate-contract.test.ts tests it instead.
  const machine: AnyStateMachine = setup({
    types: {} as { context: FlowContext; input: FlowInput },
    actions: implementations.actions as never,
    guards: implementations.guards as never,
  }).createMachine({
    id: flow.flow,
    context: ({ input }: { input: FlowInput }) => startContext(input, flow),
    initial: flow.start,
    on: rootOn as never,
    states: states as never,
  }) as unknown as AnyStateMachine;
  const computed = computedOfFlows(flow, cx.flows);
  if (computed) readsComputed(machine, computed, rendererOf(flow));

  const rootEntry = steps.get(COMMANDS_KEY)!;
  const definition: FlowDefinition = {
    id: flow.flow,
    version: cx.version,
    machine,
    triggers: triggersOf(flow),
    events: eventDeclarations(flow, cx.flows, cx.registry),
    ...handoffDefinition(flow, rootEntry),
    ...(flow.group_messages ? { groupMessages: flow.group_messages } : {}),
    rerenderEvent: { type: RERENDER_EVENT },
    stalePolicy(stateValue: unknown): StalePolicy {
      const e = steps.get(stepKeyOf(stateValue));
      const s = e?.step;
      const policy = (s && 'on_stale' in s ? s.on_stale : undefined) ?? flow.defaults?.on_stale ?? 'rerender';
      if (policy === 'accept') return { kind: 'accept' };
      if (policy === 'rerender') return { kind: 'rerender' };
      const text = typeof policy === 'object' ? policy.notify : undefined;
      const entry = e ?? rootEntry;
      return {
        kind: 'notify',
        text: text ? entry.text.render(text, {}, entry.text.locale(undefined)) : 'This menu is outdated.',
      };
    },
    migrate: flow.migrate?.length
      ? (fromVersion, persisted) => migrateSnapshot(flow, machine, fromVersion, persisted)
      : undefined,
    recover: {
      startState: (input) => ({ value: flow.start, context: startContext(input, flow) }),
      routes: (step) => {
        const s = step === undefined ? undefined : steps.get(step)?.step;
        return !!((s && 'on_error' in s && s.on_error) || flow.on_error);
      },
      where: (step) => whereIs(definition.source, step),
    },
  };
  return definition;
}
