/**
 * The step graph being built (flow-graph.ts): its lists, and how an assignment, an edge, a route, a `next`
 * and a task's outcomes are added. A kind's `graph` (kinds/<kind>/index.ts) adds its own edges with these.
 */

import {
  BUILTIN_VARS,
  type CallSite,
  type FlowEdge,
  type FlowGraph,
  provenBy,
  setNames,
  setOf,
} from './data-flow.ts';
import { payloadSchema } from './event-steps.ts';
import type { TaskCall } from './kinds/fields.ts';
import type { FlowFile, Step } from './kinds/steps.ts';
import type { LintInput } from './lint-input.ts';
import type { Route } from './schema-parts.ts';
import { joinTypes, typeOfValue, typeOfZod, type VarType } from './var-types.ts';

export type Needs = Pick<LintInput, 'registry' | 'flows'>;
export type EndOf = (callee: string) => {
  names: ReadonlySet<string>;
  types: Map<string, VarType>;
  returns?: VarType;
};

/** What an event's payload holds: its JSON Schema in this flow or another, else the registry's zod schema. */
export function eventPayloadType(name: string, flow: FlowFile, x: Needs): VarType {
  const from = `the payload of event ${name}`;
  const json = [flow, ...x.flows.values()].find((f) => f.events?.[name]?.payload)?.events?.[name]?.payload;
  const schema = json ? payloadSchema(json) : x.registry.events?.[name];
  return schema && !('error' in schema) ? typeOfZod(schema, from) : { kind: 'unknown', why: from };
}

/** The graph being built: its lists, and how an assignment, an edge, a route and a `next` are added. */
export function graphBuilder(flow: FlowFile, x: Needs, endOf: EndOf) {
  const edges: FlowEdge[] = [];
  const onEntry = new Map<string, Set<string>>();
  const waiting: string[] = [];
  const calls: CallSite[] = [];
  const types = new Map<string, VarType>();
  const opaque = new Map<string, string>();
  /** Assignments typed once every other is known (a choice from a list, a `with:` copy). */
  const later: (() => void)[] = [];
  const assign = (name: string, t: VarType) =>
    types.set(name, types.has(name) ? joinTypes(types.get(name)!, t) : t);
  const assignSet = (node: unknown) => {
    for (const [k, v] of setOf(node)) assign(k, typeOfValue(v));
  };
  const called = (name: string) => {
    const end = endOf(name);
    for (const [k, t] of end.types) assign(k, t);
    return [...end.names];
  };
  const edge = (from: string, to: string | undefined, label: string, assigns: Iterable<string>) => {
    if (to) edges.push({ from, to, label, assigns: new Set(assigns) });
  };
  /** A route's edge: what it sets, and what a flow it calls sets, then its goto. */
  const route = (from: string, r: Route | string | undefined, label: string, extra: string[] = []) => {
    if (r === undefined) return;
    if (typeof r === 'string') return edge(from, r, label, extra);
    assignSet(r);
    const viaCall = r.call ? called(r.call) : [];
    if (r.call) calls.push({ flow: r.call, steps: [from], extra: new Set([...extra, ...setNames(r)]) });
    edge(from, r.goto, label, [...extra, ...setNames(r), ...viaCall]);
  };
  const next = (from: string, step: Step, extra: string[], label = '') => {
    if (!('next' in step)) return;
    if (typeof step.next === 'string') return edge(from, step.next, label, extra);
    step.next.forEach((n) => {
      assignSet(n);
      edge(from, n.goto, n.when ? 'when' : label, [...extra, ...setNames(n), ...provenBy(n.when)]);
    });
  };
  const graph: FlowGraph = { edges, onEntry, waiting, calls, types, opaque };
  return { flow, x, endOf, graph, ...graph, later, assign, assignSet, called, edge, route, next };
}

export type Builder = ReturnType<typeof graphBuilder>;

/** A task's result and error, and its outcomes' edges (done, timeout, error). */
export function taskEdges(g: Builder, id: string, step: Step, t: TaskCall) {
  const { x, assign, assignSet, route, next, opaque } = g;
  const result = t.save_as ? [t.save_as] : [];
  if (t.save_as) {
    const def = x.registry.tasks?.[t.task];
    const schema = def && typeof def === 'object' ? def.result : undefined;
    if (schema) assign(t.save_as, typeOfZod(schema, `the result of task ${t.task}`));
    else {
      assign(t.save_as, { kind: 'unknown', why: `task ${t.task}` });
      if (typeof def === 'function') opaque.set(t.save_as, t.task);
    }
  }
  assign('task_error', BUILTIN_VARS.task_error!);
  const done = typeof t.on_done === 'string' ? { goto: t.on_done } : t.on_done;
  if (done?.goto) route(id, done, 'done', result);
  else {
    assignSet(done);
    next(id, step, [...result, ...setNames(done)], 'done');
  }
  if (t.on_timeout !== undefined) route(id, t.on_timeout, 'timeout', ['task_error']);
  const errors = t.on_error;
  if (Array.isArray(errors))
    for (const e of errors)
      route(id, e, e.code ? `error ${[e.code].flat().join('/')}` : 'error', ['task_error']);
  else route(id, errors, 'error', ['task_error']);
}
