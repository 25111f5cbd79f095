/**
 * Which variables are set when a step is entered, on every path: the "definitely assigned" analysis of a
 * compiler, over the flow's step graph (answers, buttons, `next` entries, branch cases, task outcomes,
 * calls, commands from every waiting step, idle timers). A step's entry set is the intersection of what
 * its incoming edges carry, solved to a fixpoint; a read of a variable missing from it is a read some path
 * reaches unset, and `unsetPath` names that path.
 *
 * Every assignment is collected here, in one place: `setNames` is what a route, a `next` entry, a branch
 * case, a button or a step (on entry) assigns.
 */

import { elsewhereRoutes, onEventOf, payloadSchema } from './event-steps.ts';
import { kindsOf } from './inputs.ts';
import type { LintInput } from './lint-input.ts';
import { classifierSlots } from './registry.ts';
import type { FlowFile, Route, Step, TaskCall, Understand } from './schema.ts';
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

/** Variables botflow itself sets (never reported as unset). */
export const BUILTIN_VARS: Record<string, VarType> = {
  start_payload: { kind: 'text' },
  // Set by a handoff step (docs/handoff.md): the expected wait, the place in the queue, the person's and
  // the operator's names.
  handoff_wait: { kind: 'text' },
  handoff_place: { kind: 'number' },
  handoff_person: { kind: 'text' },
  handoff_operator: { kind: 'text' },
  // The request itself, only while the person is at the handoff step.
  handoff: {
    kind: 'object',
    fields: {
      open: { kind: 'boolean' },
      operator: { kind: 'object', fields: { id: { kind: 'number' }, name: { kind: 'text' } } },
    },
  },
  button_value: { kind: 'text' },
  locale: { kind: 'text' },
  task_error: {
    kind: 'object',
    fields: { code: { kind: 'text' }, message: { kind: 'text' } },
    from: 'task_error',
  },
};

export interface FlowEdge {
  from: string;
  to: string;
  /** How a person takes it: a button id, `/cancel`, `when`, `error slot_taken`, … */
  label: string;
  assigns: ReadonlySet<string>;
}

export interface CallSite {
  flow: string;
  /** The step it is made from (every waiting step for a command's call). */
  steps: string[];
  extra: ReadonlySet<string>;
}

/** The step graph of one flow and what each part of it assigns. */
export interface FlowGraph {
  edges: FlowEdge[];
  /** Variables a step sets when it is entered (`set:` on a step). */
  onEntry: Map<string, Set<string>>;
  /** Steps where the person is awaited, so that a command or a timer can fire. */
  waiting: string[];
  calls: CallSite[];
  /** Every assignment in this flow, by name, with what it is known to hold. */
  types: Map<string, VarType>;
  /** Tasks that are plain functions, whose result (save_as) is not known: name → task. */
  opaque: Map<string, string>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** What a route, a `next` entry, a branch case, a button or a step assigns: the keys of its `set:`. */
export function setOf(node: unknown): [string, unknown][] {
  return isObj(node) && isObj(node.set) ? Object.entries(node.set) : [];
}
export const setNames = (node: unknown): string[] => setOf(node).map(([k]) => k);

/** The variables a condition proves set on the edge it guards: `{var: x, exists: true}`, within `all`. */
export function provenBy(when: unknown): string[] {
  if (!isObj(when)) return [];
  if (typeof when.var === 'string' && when.exists === true) return [when.var.split('.')[0]!];
  return Array.isArray(when.all) ? when.all.flatMap(provenBy) : [];
}

/** What a choice from a list saves: the element, or its field `item.<field>`. */
export function itemValue(list: VarType | undefined, value: string | undefined): VarType {
  const item = list?.kind === 'list' ? list.item : UNKNOWN;
  if (!value || value === 'item') return item;
  const field = value.split('.')[1] ?? '';
  return item.kind === 'object' ? (item.fields[field] ?? UNKNOWN) : UNKNOWN;
}

/** What an event's payload holds: its JSON Schema in this flow or another, else the registry's zod schema. */
function eventPayloadType(name: string, flow: FlowFile, x: Pick<LintInput, 'registry' | 'flows'>): VarType {
  const from = `the payload of event ${name}`;
  const json = [flow, ...x.flows.values()].find((f) => f.events?.[name]?.payload)?.events?.[name]?.payload;
  const schema = json ? payloadSchema(json) : x.registry.events?.[name];
  return schema && !('error' in schema) ? typeOfZod(schema, from) : { kind: 'unknown', why: from };
}

/** Builds the graph of `flow`; `endOf(callee)` is what a called flow sets on every path to its end. */
export function buildGraph(
  flow: FlowFile,
  x: Pick<LintInput, 'registry' | 'flows'>,
  endOf: (callee: string) => { names: ReadonlySet<string>; types: Map<string, VarType>; returns?: VarType },
): FlowGraph {
  const edges: FlowEdge[] = [];
  const onEntry = new Map<string, Set<string>>();
  const waiting: string[] = [];
  const calls: CallSite[] = [];
  const types = new Map<string, VarType>();
  const opaque = new Map<string, string>();
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
  const task = (id: string, step: Step, t: TaskCall) => {
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
  };

  /** Intent routes (`understand:`); `save_slots` sets the slots the keyword classifier always reads. */
  const understand = (from: string, u: Understand | undefined) => {
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
  };
  for (const [id, step] of Object.entries(flow.steps)) {
    assignSet(step);
    if (step.type === 'menu' || step.type === 'input' || step.type === 'wait') {
      understand(id, step.understand);
      understand(id, flow.understand);
    }
    onEntry.set(id, new Set(setNames(step)));
    const buttons = 'keyboard' in step ? (step.keyboard ?? []).flat() : [];
    for (const b of buttons) if (b.id) route(id, b, b.id, b.value !== undefined ? ['button_value'] : []);
    if ('idle' in step && step.idle) edge(id, step.idle.goto, 'idle', []);
    for (const [name, r] of Object.entries(onEventOf(step))) {
      if (r.save_as) assign(r.save_as, eventPayloadType(name, flow, x));
      route(id, r, `event ${name}`, r.save_as ? [r.save_as] : []);
    }
    switch (step.type) {
      case 'input': {
        waiting.push(id);
        const from = step.options_from;
        // A choice from a list saves an element (or a field of it): known once every list is typed.
        if (step.save && from)
          later.push(() => assign(step.save!, itemValue(typeAt(types, from.list), from.value)));
        else if (step.save) assign(step.save, typeOfInput(kindsOf(step)));
        next(id, step, step.save ? [step.save] : [], 'valid');
        route(id, step.retries.exhausted, 'exhausted');
        route(id, from?.empty, 'empty');
        if (!step.idle && flow.defaults?.idle) edge(id, flow.defaults.idle.goto, 'idle', []);
        break;
      }
      case 'wait':
        waiting.push(id);
        break;
      case 'menu':
        waiting.push(id);
        route(id, step.on_text, 'text');
        break;
      case 'message': {
        const t = (step.do ?? []).find((d): d is TaskCall => 'task' in d);
        if (t) {
          waiting.push(id);
          task(id, step, t);
        } else next(id, step, []);
        break;
      }
      case 'branch':
        step.cases.forEach((c) => {
          assignSet(c);
          edge(id, c.goto, 'when', [...setNames(c), ...provenBy(c.when)]);
        });
        edge(id, step.else, 'else', []);
        break;
      case 'call': {
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
        break;
      }
    }
  }
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
  for (const f of later) f();
  return { edges, onEntry, waiting, calls, types, opaque };
}

/** The entry sets of every step reachable from the start, given what is set when the flow starts. */
export function solve(flow: FlowFile, g: FlowGraph, start: ReadonlySet<string>): Map<string, Set<string>> {
  const into = new Map<string, Set<string>>();
  into.set(flow.start, new Set(start));
  const entered = (id: string) => {
    const s = into.get(id);
    return s && new Set([...s, ...(g.onEntry.get(id) ?? [])]);
  };
  for (let changed = true, round = 0; changed && round < 1000; round++) {
    changed = false;
    for (const e of g.edges) {
      const from = entered(e.from);
      if (!from || !(e.to in flow.steps)) continue;
      const out = new Set([...from, ...e.assigns]);
      const old = into.get(e.to);
      if (!old) {
        into.set(e.to, out);
        changed = true;
      } else
        for (const v of old)
          if (!out.has(v)) {
            old.delete(v);
            changed = true;
          }
    }
  }
  return new Map([...into.keys()].map((id) => [id, entered(id)!]));
}

/**
 * A shortest path from the start to `step` on which `name` is never set (none when it is set on every
 * path): the steps, and the label of each edge taken.
 */
export function unsetPath(
  flow: FlowFile,
  g: FlowGraph,
  start: ReadonlySet<string>,
  name: string,
  step: string,
): { steps: string[]; labels: string[] } | undefined {
  if (start.has(name)) return undefined;
  const parent = new Map<string, { from: string; label: string } | null>([[flow.start, null]]);
  const queue = [flow.start];
  while (queue.length) {
    const id = queue.shift()!;
    if (g.onEntry.get(id)?.has(name)) continue;
    if (id === step) break;
    for (const e of g.edges)
      if (e.from === id && !e.assigns.has(name) && !parent.has(e.to) && e.to in flow.steps) {
        parent.set(e.to, { from: id, label: e.label });
        queue.push(e.to);
      }
  }
  if (!parent.has(step) || g.onEntry.get(step)?.has(name)) return undefined;
  const steps = [step];
  const labels: string[] = [];
  for (let p = parent.get(step); p; p = parent.get(p.from)) {
    steps.unshift(p.from);
    labels.unshift(p.label);
  }
  return { steps, labels };
}

/** `a → b →[edit_day] c`: a path as a person walks it. */
export function pathText(p: { steps: string[]; labels: string[] }): string {
  return p.steps
    .map((s, i) =>
      i === 0
        ? s
        : `${p.labels[i - 1] && !['valid', ''].includes(p.labels[i - 1]!) ? ` →[${p.labels[i - 1]}] ` : ' → '}${s}`,
    )
    .join('');
}
