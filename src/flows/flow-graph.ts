/**
 * The step graph of one flow (data-flow.ts): its edges — answers, buttons, `next` entries, branch cases, task
 * outcomes, calls, intents, events, commands from every waiting step, idle timers — and every assignment
 * with what it is known to hold.
 */
import {
  BUILTIN_VARS,
  type CallSite,
  type FlowEdge,
  type FlowGraph,
  itemValue,
  provenBy,
  setNames,
  setOf,
} from './data-flow.ts';
import { elsewhereRoutes, onEventOf, payloadSchema } from './event-steps.ts';
import { kindsOf } from './inputs.ts';
import type { LintInput } from './lint-input.ts';
import { classifierSlots } from './registry.ts';
import type { FlowFile, InputStep, Route, Step, TaskCall, Understand } from './schema.ts';
import { KEYWORDS_CLASSIFIER } from './schema-intents.ts';
import { slotsOf } from './understand/keywords.ts';
import {
  joinTypes,
  typeAt,
  typeOfInput,
  typeOfValue,
  typeOfZod,
  UNKNOWN,
  type VarType,
} from './var-types.ts';

type Needs = Pick<LintInput, 'registry' | 'flows'>;
type EndOf = (callee: string) => {
  names: ReadonlySet<string>;
  types: Map<string, VarType>;
  returns?: VarType;
};

/** What an event's payload holds: its JSON Schema in this flow or another, else the registry's zod schema. */
function eventPayloadType(name: string, flow: FlowFile, x: Needs): VarType {
  const from = `the payload of event ${name}`;
  const json = [flow, ...x.flows.values()].find((f) => f.events?.[name]?.payload)?.events?.[name]?.payload;
  const schema = json ? payloadSchema(json) : x.registry.events?.[name];
  return schema && !('error' in schema) ? typeOfZod(schema, from) : { kind: 'unknown', why: from };
}

/** The graph being built: its lists, and how an assignment, an edge, a route and a `next` are added. */
function graphBuilder(flow: FlowFile, x: Needs, endOf: EndOf) {
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

type Builder = ReturnType<typeof graphBuilder>;

/** A task's result and error, and its outcomes' edges (done, timeout, error). */
function taskEdges(g: Builder, id: string, step: Step, t: TaskCall) {
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

/** Intent routes (`understand:`); `save_slots` sets the slots the keyword classifier always reads. */
function understandEdges({ flow, x, assign, route }: Builder, from: string, u: Understand | undefined) {
  const keywords = !u?.classifier || u.classifier === KEYWORDS_CLASSIFIER;
  for (const [name, r] of Object.entries(u?.intents ?? {})) {
    // The keyword classifier's slots are its patterns' named groups (texts); a registered one declares its own.
    const declared =
      r.save_slots && !keywords ? classifierSlots(x.registry, u!.classifier!, name) : undefined;
    const slots = !r.save_slots
      ? []
      : keywords
        ? slotsOf(flow.intents ?? {}, name)
        : Object.keys(declared ?? {});
    for (const slot of slots)
      assign(
        slot,
        declared ? typeOfZod(declared[slot], `slot ${slot} of ${u!.classifier}`) : { kind: 'text' },
      );
    route(from, r, `intent ${name}`, slots);
  }
  route(from, u?.unclear, 'unclear');
  route(from, u?.unknown, 'unknown');
}

/** What every kind of step may have: `set:`, intents, buttons, idle, events. */
function commonEdges(g: Builder, id: string, step: Step) {
  const { flow, x, assign, assignSet, route, edge, onEntry } = g;
  assignSet(step);
  if (step.type === 'menu' || step.type === 'input' || step.type === 'wait') {
    understandEdges(g, id, step.understand);
    understandEdges(g, id, flow.understand);
  }
  onEntry.set(id, new Set(setNames(step)));
  const buttons = 'keyboard' in step ? (step.keyboard ?? []).flat() : [];
  for (const b of buttons) if (b.id) route(id, b, b.id, b.value !== undefined ? ['button_value'] : []);
  if ('idle' in step && step.idle) edge(id, step.idle.goto, 'idle', []);
  for (const [name, r] of Object.entries(onEventOf(step))) {
    if (r.save_as) assign(r.save_as, eventPayloadType(name, flow, x));
    route(id, r, `event ${name}`, r.save_as ? [r.save_as] : []);
  }
}

/** An input: its answer saved (a choice from a list: known once every list is typed), its ways out. */
function inputEdges(
  { flow, types, waiting, later, assign, next, route, edge }: Builder,
  id: string,
  step: InputStep,
) {
  waiting.push(id);
  const from = step.options_from;
  if (step.save && from)
    later.push(() => assign(step.save!, itemValue(typeAt(types, from.list), from.value)));
  else if (step.save) assign(step.save, typeOfInput(kindsOf(step)));
  next(id, step, step.save ? [step.save] : [], 'valid');
  route(id, step.retries.exhausted, 'exhausted');
  route(id, from?.empty, 'empty');
  if (!step.idle && flow.defaults?.idle) edge(id, flow.defaults.idle.goto, 'idle', []);
}

/** A message: its task's outcomes (the step waits for them), else its `next`. */
function messageEdges(g: Builder, id: string, step: Extract<Step, { type: 'message' }>) {
  const t = (step.do ?? []).find((d): d is TaskCall => 'task' in d);
  if (t) {
    g.waiting.push(id);
    taskEdges(g, id, step, t);
  } else g.next(id, step, []);
}

/** A branch: its cases (with what their conditions prove set) and `else`. */
function branchEdges({ assignSet, edge }: Builder, id: string, step: Extract<Step, { type: 'branch' }>) {
  step.cases.forEach((c) => {
    assignSet(c);
    edge(id, c.goto, 'when', [...setNames(c), ...provenBy(c.when)]);
  });
  edge(id, step.else, 'else', []);
}

/** A call: its `with:` copies, what the called flow sets, its result, then `next`. */
function callEdges(g: Builder, id: string, step: Extract<Step, { type: 'call' }>) {
  const { waiting, later, assign, types, calls, called, endOf, edge } = g;
  waiting.push(id);
  const withNames = Object.keys(step.with ?? {});
  for (const [k, v] of Object.entries(step.with ?? {})) {
    const copied = typeof v === 'string' ? /^\{\{\s*(\w+)\s*\}\}$/.exec(v)?.[1] : undefined;
    if (copied) later.push(() => assign(k, types.get(copied) ?? UNKNOWN));
    else assign(k, typeOfValue(v));
  }
  calls.push({ flow: step.flow, steps: [id], extra: new Set(withNames) });
  const end = called(step.flow);
  if (step.save_as) assign(step.save_as, endOf(step.flow).returns ?? UNKNOWN);
  edge(id, step.next, '', [...withNames, ...end, ...(step.save_as ? [step.save_as] : [])]);
}

/** What reaches every waiting step: a trigger's payload, events while elsewhere, the flow's commands. */
function flowWideEdges({ flow, x, assign, assignSet, route, waiting, calls }: Builder) {
  for (const t of flow.triggers ?? [])
    if (t.event && t.save_as) assign(t.save_as, eventPayloadType(t.event, flow, x));
  for (const [name, r] of elsewhereRoutes(flow)) {
    if (r.save_as) assign(r.save_as, eventPayloadType(name, flow, x));
    for (const w of waiting) route(w, r, `event ${name}`, r.save_as ? [r.save_as] : []);
  }
  for (const [name, cmd] of Object.entries(flow.commands ?? {})) {
    assignSet(cmd);
    if (cmd.call) calls.push({ flow: cmd.call, steps: waiting, extra: new Set(setNames(cmd)) });
    for (const w of waiting) route(w, cmd, `/${name}`);
  }
}

/** Builds the graph of `flow`; `endOf(callee)` is what a called flow sets on every path to its end. */
export function buildGraph(flow: FlowFile, x: Needs, endOf: EndOf): FlowGraph {
  const g = graphBuilder(flow, x, endOf);
  for (const [id, step] of Object.entries(flow.steps)) {
    commonEdges(g, id, step);
    if (step.type === 'input') inputEdges(g, id, step);
    else if (step.type === 'wait') g.waiting.push(id);
    else if (step.type === 'menu') {
      g.waiting.push(id);
      g.route(id, step.on_text, 'text');
    } else if (step.type === 'message') messageEdges(g, id, step);
    else if (step.type === 'branch') branchEdges(g, id, step);
    else if (step.type === 'call') callEdges(g, id, step);
  }
  flowWideEdges(g);
  for (const f of g.later) f();
  return g.graph;
}
