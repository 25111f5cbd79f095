/**
 * Which variables are set when a step is entered, on every path: the "definitely assigned" analysis of a
 * compiler, over the flow's step graph (answers, buttons, `next` entries, branch cases, task outcomes,
 * calls, commands from every waiting step, idle timers). A step's entry set is the intersection of what
 * its incoming edges carry, solved to a fixpoint; a read of a variable missing from it is a read some path
 * reaches unset, and `unsetPath` names that path.
 *
 * Every assignment is collected in one place, flow-graph.ts (`buildGraph`); `setNames` is what a route, a
 * `next` entry, a branch case, a button or a step (on entry) assigns.
 */

import type { FlowFile } from './kinds/steps.ts';
import { UNKNOWN, type VarType } from './var-types.ts';

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
