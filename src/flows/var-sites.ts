/**
 * Where reads happen in a flow file (the step and what was set just before: a route's `set:`, an answer, a
 * task result, a button's value), the reads of conditions, and the flow-level `computed:` values.
 */
import { type FlowGraph, setNames } from './data-flow.ts';
import type { FlowScope } from './flow-scope.ts';
import { kindOf } from './kinds/registry.ts';
import type { LintInput, Report } from './lint-input.ts';
import { type Path, type Span, spanWithin } from './problems.ts';
import type { Condition, FlowFile, Step } from './schema.ts';
import { expressionReads, type NameRead } from './var-reads.ts';
import { typeAt, UNKNOWN, type VarType } from './var-types.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** Where a read happens: when any of `steps` is entered, after `extra` was set. */
export interface Site {
  steps: string[];
  extra: string[];
}

export interface Read {
  path: Path;
  read: NameRead;
  /** What the designer wrote, for messages: `{{slot.tiem}}`, `$nmae`. */
  shown: string;
  site?: Site;
  /** In `options_from`, `item` is an element of the list. */
  item?: VarType;
}

/** The flow-level `computed:` values (name → "= expression"), read defensively. */
export function computedOf(flow: FlowFile): Record<string, string> {
  const c = (flow as { computed?: unknown }).computed;
  return isObj(c)
    ? (Object.fromEntries(Object.entries(c).filter(([, v]) => typeof v === 'string')) as Record<
        string,
        string
      >)
    : {};
}

export function conditionReads(c: Condition, path: Path, site: Site | undefined, reads: Read[]): void {
  if (typeof c.var === 'string') {
    const [name, ...fields] = c.var.split('.');
    reads.push({
      path: [...path, 'var'],
      read: { name: name!, fields, index: 0, ...(c.exists !== undefined ? { maybe: true } : {}) },
      shown: c.var,
      ...(site ? { site } : {}),
    });
  }
  if (typeof c.expr === 'string')
    for (const r of expressionReads(c.expr))
      reads.push({
        path: [...path, 'expr'],
        read: r,
        shown: [r.name, ...r.fields].join('.'),
        ...(site ? { site } : {}),
      });
  c.all?.forEach((s, i) => {
    conditionReads(s, [...path, 'all', i], site, reads);
  });
  c.any?.forEach((s, i) => {
    conditionReads(s, [...path, 'any', i], site, reads);
  });
  if (c.not) conditionReads(c.not, [...path, 'not'], site, reads);
}

/**
 * Where a read at `path` happens: on entry of its step, or in a route after what the route (and the
 * answer, task result or button press it follows) has set. Commands read at every waiting step.
 */
export function siteOf(flow: FlowFile, g: FlowGraph, path: Path): Site | undefined {
  if (path[0] === 'commands') return { steps: g.waiting, extra: setNames(flow.commands?.[String(path[1])]) };
  if (path[0] === 'defaults' && (path[1] === 'remind' || path[1] === 'idle')) {
    const key = path[1];
    // The steps whose kind fills the default in (`withDefaults`) because they declare none of their own.
    const takes = (s: Step) => {
      const filled = kindOf(s).withDefaults?.(s, flow) as Obj | undefined;
      return !!filled && !(s as Obj)[key] && filled[key] !== undefined;
    };
    return {
      steps: Object.entries(flow.steps)
        .filter(([, s]) => takes(s))
        .map(([id]) => id),
      extra: [],
    };
  }
  if (path[0] === 'events' && path[2] === 'while_elsewhere') {
    const r = flow.events?.[String(path[1])]?.while_elsewhere;
    const saved = typeof r === 'object' && r.save_as ? [r.save_as] : [];
    return { steps: g.waiting, extra: [...saved, ...setNames(r)] };
  }
  if (path[0] !== 'steps') return undefined;
  const id = String(path[1]);
  const step = flow.steps[id] as Obj | undefined;
  if (!step) return undefined;
  if (path.length >= 4 && (path.at(-1) === 'text' || path.at(-1) === 'value') && path.includes('keyboard'))
    return { steps: [id], extra: [] }; // a button's label is drawn before any press
  const extra: string[] = [];
  const task = ((step.do as unknown[]) ?? []).find((d) => isObj(d) && 'task' in d) as Obj | undefined;
  let node: unknown = step;
  for (let i = 2; i < path.length; i++) {
    const seg = path[i]!;
    if (seg === 'next' && typeof step.save === 'string') extra.push(step.save);
    if (seg === 'next' && task)
      extra.push(...(typeof task.save_as === 'string' ? [task.save_as] : []), ...setNames(task.on_done));
    if (seg === 'on_done' && typeof task?.save_as === 'string') extra.push(task.save_as);
    if (seg === 'on_error' || seg === 'on_timeout') extra.push('task_error');
    node = isObj(node) || Array.isArray(node) ? (node as Obj)[seg as string] : undefined;
    if (i < path.length - 1 && isObj(node)) {
      extra.push(...setNames(node));
      if ('id' in node && node.value !== undefined) extra.push('button_value');
    }
    // An event's route reads the payload it saves (`on_event: { x: { save_as: p, say: "{{p.id}}" } }`).
    if (path[i - 1] === 'on_event' && isObj(node) && typeof node.save_as === 'string')
      extra.push(node.save_as);
  }
  return { steps: [id], extra };
}

/** The element type of the list `{{item}}` is taken from at `path` (its kind's `itemListAt`: an `options_from`). */
export function itemAt(flow: FlowFile, scope: FlowScope, path: Path): VarType | undefined {
  if (path[0] !== 'steps') return undefined;
  const step = flow.steps[String(path[1])];
  const from = step && kindOf(step).itemListAt?.(step, path.slice(2));
  if (from === undefined) return undefined;
  const list = typeAt(scope.types, from);
  return list?.kind === 'list' ? list.item : UNKNOWN;
}

/** The variables a computed value reads, through the computed values it reads. */
export function computedInputs(
  computed: Record<string, string>,
  name: string,
  seen = new Set<string>(),
): string[] {
  if (seen.has(name)) return [];
  seen.add(name);
  return expressionReads(computed[name]!).flatMap((r) =>
    r.name in computed ? computedInputs(computed, r.name, seen) : r.maybe ? [] : [r.name],
  );
}

/** Computed values that read each other in a circle can never be evaluated. */
export function lintComputedCycles(computed: Record<string, string>, report: Report): void {
  const state = new Map<string, 'busy' | 'done'>();
  const visit = (name: string, trail: string[]): void => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'busy') {
      const cycle = [...trail.slice(trail.indexOf(name)), name];
      report(
        'computed-cycle',
        ['computed', cycle[0]!],
        'error',
        `computed values read each other in a circle: ${cycle.join(' → ')}`,
        'one of them must be computed from variables the flow sets',
      );
      return;
    }
    state.set(name, 'busy');
    for (const r of expressionReads(computed[name]!)) if (r.name in computed) visit(r.name, [...trail, name]);
    state.set(name, 'done');
  };
  for (const name of Object.keys(computed)) visit(name, []);
}

/** Calls `fn` for every value under a `set:`, a task's `input:` and a call's `with:` of the flow's steps and commands. */
export function visitValues(
  flow: FlowFile,
  fn: (path: Path, value: unknown, key: 'set' | 'input' | 'with') => void,
): void {
  const visit = (node: unknown, path: Path): void => {
    if (Array.isArray(node)) {
      node.forEach((v, i) => {
        visit(v, [...path, i]);
      });
      return;
    }
    if (!isObj(node)) return;
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'set' || k === 'with' || (k === 'input' && 'task' in node)) && isObj(v))
        for (const [name, value] of Object.entries(v)) fn([...path, k, name], value, k as 'set');
      else visit(v, [...path, k]);
    }
  };
  visit(flow.steps, ['steps']);
  visit(flow.commands, ['commands']);
}

export function getAt(data: unknown, path: Path): unknown {
  let cur = data;
  for (const seg of path) cur = isObj(cur) || Array.isArray(cur) ? (cur as Obj)[seg as string] : undefined;
  return cur;
}

/** Where `needle` (at `index` in the value, when the value is written on one line) is in the file. */
export function posOf(x: LintInput, path: Path, index: number, needle: string): Span {
  const p = x.locate.at(path);
  const lines = (x.text ?? '').split('\n');
  const line = lines[p.line - 1] ?? '';
  const found = line.indexOf(needle, p.col - 1 + Math.max(0, index - 2));
  const any = found >= 0 ? found : line.indexOf(needle, p.col - 1);
  if (any >= 0) return { line: p.line, col: any + 1, endLine: p.line, endCol: any + 1 + needle.length };
  return (x.text !== undefined && spanWithin(x.text, p, needle)) || p;
}
