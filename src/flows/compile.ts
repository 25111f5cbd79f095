/**
 * Compiles a validated flow file into an XState v5 machine and the engine's `FlowDefinition`.
 * The machine config is data: named actions and guards with JSON params; timers are `timer.arm` /
 * `timer.cancel` effects, never XState `after`. Flows named by `call` are inlined as nested states.
 */
import { type AnyStateMachine, setup } from 'xstate';
import type { FlowDefinition, FlowInput, StalePolicy } from '../engine/step/contract.ts';
import { actionsFor, type FlowContext, RERENDER_EVENT } from './actions.ts';
import { comeBackSteps } from './come-back.ts';
import {
  act,
  buildStates,
  COMMANDS_KEY,
  type Compiling,
  guard,
  routeTransition,
  type StateConfig,
} from './compile-states.ts';
import { elsewhereRoutes, eventDeclarations, startContext } from './event-steps.ts';
import type { StepKind } from './kinds/contract.ts';
import { projectKinds } from './kinds/custom-adapter.ts';
import { attachDefinitionKinds } from './kinds/custom-attach.ts';
import { BUILTIN_KINDS, kindOf } from './kinds/registry.ts';
import { type StepEntry, stepKeyOf } from './machine-context.ts';
import type { Registry } from './registry.ts';
import { computedOfFlows, failureTransitions, readsComputed, whereIs } from './run-time-failures.ts';
import type { FlowFile } from './schema.ts';
import type { Catalog, TextRenderer } from './texts.ts';
import { textRenderer } from './texts.ts';
import { triggersOf } from './triggers.ts';
import { migrateSnapshot } from './versions.ts';

export { withDefaults } from './compile-states.ts';
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

/** The compiler's state for one flow: its step entries and paths, and the flows called from routes. */
function compiling(flow: FlowFile, cx: CompileContext): Compiling {
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
  const k: Compiling = {
    flow,
    flows: cx.flows,
    buildStates: (f, prefix, chain, parent) => buildStates(k, f, prefix, chain, parent),
    steps: new Map(),
    paths: new Map(),
    calledFromRoutes: new Set(),
    returns: comeBackSteps(flow),
    rendererOf,
    usesEdit: false,
  };
  return k;
}

/** The transitions at the flow's root: start, commands, events elsewhere, queued events, a designer's jump. */
function rootTransitions(k: Compiling): Record<string, unknown[]> {
  const { flow } = k;
  const rootOn: Record<string, unknown[]> = {
    'effect.done': [{ guard: guard('rendered', {}), actions: [act('keepMessageId', {})] }],
    bot_started: [{ target: `.${flow.start}`, reenter: true, actions: [act('restart', {})] }],
    command: Object.entries(flow.commands ?? {}).map(([name, route]) => {
      if (route.call) k.calledFromRoutes.add(route.call);
      return {
        guard: guard('command', { name }),
        ...routeTransition(
          k,
          COMMANDS_KEY,
          `command:${name}`,
          route,
          route.goto ? `.${route.goto}` : undefined,
        ),
        reenter: true,
      };
    }),
  };
  // An event the step does not take, with `while_elsewhere: { goto }`: the flow goes to that step.
  rootOn.event = elsewhereRoutes(flow).map(([name, route]) => ({
    guard: guard('event', { name }),
    ...routeTransition(k, COMMANDS_KEY, `elsewhere:${name}`, route, `.${route.goto}`),
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
  return rootOn;
}

/** The states beside the steps: the return to a summary, flows called from routes and the way back. */
function routeStates(k: Compiling, states: Record<string, StateConfig>) {
  const { flow, returns, calledFromRoutes } = k;
  if (returns.from.length > 0) {
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
    const f = k.flows.get(callee)!;
    states[`__call_${callee}`] = {
      initial: f.start,
      states: buildStates(k, f, `__call_${callee}>`, [flow.flow, callee], [`__call_${callee}`]),
      onDone: { target: '__return' },
    };
  }
  if (calledFromRoutes.size) {
    states.__return = {
      always: Object.entries(flow.steps)
        .filter(([, step]) => kindOf(step).resumes)
        .map(([id]) => ({ guard: guard('returnTo', { step: id }), target: id })),
    };
  }
}

/** Builds the FlowDefinition of a flow file that passed the checks. */
export function buildDefinition(flow: FlowFile, cx: CompileContext): FlowDefinition {
  const k = compiling(flow, cx);
  const { steps, paths, rendererOf } = k;
  /** Where an `on_error` route's goto leads from the step `key` (a step of the same flow). */
  const failureTarget = (key: string, goto: string) =>
    `#${flow.flow}.${[...(paths.get(key) ?? []).slice(0, -1), goto].join('.')}`;
  const states = buildStates(k, flow, '', [flow.flow]);
  const rootOn = rootTransitions(k);
  routeStates(k, states);
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

  const implementations = actionsFor(
    steps,
    flow,
    cx.registry,
    k.usesEdit,
    cx.baseDir ?? process.cwd(),
    kindOf,
  );
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
    events: eventDeclarations(flow, cx.flows, cx.registry, kindOf),
    ...kindDefinitions(flow, rootEntry, cx.registry),
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
  attachDefinitionKinds(definition, projectKinds(cx.registry));
  return definition;
}

/** What each kind, built-in or the project's, adds to the flow's definition (StepKind.definition). */
function kindDefinitions(flow: FlowFile, root: StepEntry, registry: Registry): Partial<FlowDefinition> {
  const parts: Partial<FlowDefinition> = {};
  const kinds: readonly Pick<StepKind, 'definition'>[] = [...BUILTIN_KINDS, ...projectKinds(registry)];
  for (const kind of kinds) Object.assign(parts, kind.definition?.(flow, root, kindOf));
  return parts;
}
