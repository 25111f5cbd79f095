/**
 * What a compiled flow adds so that nothing it computes at run time can leave a person unanswered or
 * stale: the `botflow.failed` routes (the failing step's `on_error`, else the flow's, else a built-in
 * apology and the end; engine/step/failure.ts sends the event) and the reading of computed values while
 * the machine handles an event (computed.ts).
 */
import type { AnyStateMachine } from 'xstate';
import { type ComputedValues, withComputed } from './computed.ts';
import { COMMANDS_ENTRY } from './designer-actions.ts';
import { walkFlow } from './flow-walk.ts';
import { nowOf, type StepEntry } from './machine-context.ts';
import type { FlowFile, Route } from './schema.ts';
import { stepLines } from './step-lines.ts';
import type { TextRenderer } from './texts.ts';

const act = (type: string, params: Record<string, unknown>) => ({ type, params });

/** The root's `botflow.failed` transitions; `target(key, goto)` is where a step's route leads. */
export function failureTransitions(
  flow: FlowFile,
  steps: ReadonlyMap<string, StepEntry>,
  target: (key: string, goto: string) => string,
): unknown[] {
  const own = [...steps.values()]
    .filter((e) => 'on_error' in e.step && e.step.on_error)
    .map((e) => {
      const route = (e.step as { on_error: Route }).on_error;
      return {
        guard: act('failedAt', { step: e.key }),
        ...(route.goto ? { target: target(e.key, route.goto) } : {}),
        reenter: true,
        actions: [act('failedRoute', { step: e.key })],
      };
    });
  const flowWide = flow.on_error
    ? [
        {
          guard: act('failedHere', {}),
          ...(flow.on_error.goto ? { target: `.${flow.on_error.goto}` } : {}),
          reenter: true,
          actions: [act('failedRoute', { step: COMMANDS_ENTRY })],
        },
      ]
    : [];
  return [...own, ...flowWide, { target: '.__failed', actions: [act('apologize', {})] }];
}

/** The computed values of a flow and of the flows it calls (inlined into it), or undefined if none. */
export function computedOfFlows(
  flow: FlowFile,
  flows: ReadonlyMap<string, FlowFile>,
): ComputedValues | undefined {
  const all: Record<string, string> = {};
  const seen = new Set<string>();
  const visit = (f: FlowFile | undefined) => {
    if (!f || seen.has(f.flow)) return;
    seen.add(f.flow);
    // Every flow it calls: by a call step, or from a route (a button, a command, an intent, an event…).
    for (const c of walkFlow(f).calls) visit(flows.get(c.flow));
    Object.assign(all, f.computed ?? {});
  };
  visit(flow);
  Object.assign(all, flow.computed ?? {}); // the flow's own win over those of the flows it calls
  return Object.keys(all).length ? all : undefined;
}

/**
 * Makes the machine's transitions read `computed` (computed.ts): the engine calls `transition` and
 * `getInitialSnapshot` on the machine itself, so both are wrapped on this machine object.
 */
export function readsComputed(machine: AnyStateMachine, computed: ComputedValues, text: TextRenderer): void {
  const localeOf = (context: unknown) => {
    const c = context as { vars?: { locale?: unknown }; locale?: string } | undefined;
    return text.locale(typeof c?.vars?.locale === 'string' ? c.vars.locale : c?.locale);
  };
  const transition = machine.transition.bind(machine);
  const initial = machine.getInitialSnapshot.bind(machine);
  const m = machine as unknown as Record<string, (...args: never[]) => unknown>;
  m.transition = ((snapshot: { context: unknown }, event: unknown, scope: unknown) =>
    withComputed(computed, { now: nowOf(event), locale: localeOf(snapshot.context) }, () =>
      transition(snapshot as never, event as never, scope as never),
    )) as never;
  m.getInitialSnapshot = ((scope: unknown, input: { meta?: { now?: number; locale?: string } }) =>
    withComputed(computed, { now: input?.meta?.now ?? 0, locale: text.locale(input?.meta?.locale) }, () =>
      initial(scope as never, input as never),
    )) as never;
  // A machine made from this one with other implementations (the coverage recorder's) reads them too.
  const provide = machine.provide.bind(machine);
  m.provide = ((implementations: never) => {
    const provided = provide(implementations);
    readsComputed(provided, computed, text);
    return provided;
  }) as never;
}

/** Where the step `key` is written (`flows/order.flow.yaml:23`), from the flow's stored source. */
export function whereIs(source: string | undefined, key: string | undefined): string | undefined {
  if (key === undefined || key.includes('>')) return undefined;
  const lines = stepLines(source)[key];
  return lines ? `${lines.file}:${lines.line}` : undefined;
}
