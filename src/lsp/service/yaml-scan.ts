/**
 * The names a generic walk of a flow file's YAML finds, whatever kind of step they are in: variables set
 * (`save`, `save_as`, `set:`, `computed:`) and read (`{{…}}` in texts, `= expressions`, conditions'
 * `var:`), a step's `type:`, guards, validators, tasks, effects, events, intents, and the keys themselves
 * (for their documentation).
 */
import { isMap, isPair, isScalar, isSeq, type Node, type Scalar } from 'yaml';
import type { Path } from '../../flows/problems.ts';
import { expressionReads, templateReads } from '../../flows/var-reads.ts';
import { type FlowIndex, type Occurrence, STEP_KEYS } from './model.ts';

interface Scan {
  text: string;
  out: Occurrence[];
  ix: FlowIndex;
  seen: Set<string>;
}

const NAMED: Record<string, Occurrence['kind']> = {
  task: 'task',
  effect: 'effect',
  guard: 'guard',
  rule: 'validator',
};

/** The step a path is in. */
const stepOf = (path: Path) => (path[0] === 'steps' && path.length > 1 ? String(path[1]) : undefined);

function push(s: Scan, o: Occurrence, path: Path): void {
  const step = stepOf(path);
  const key = `${o.kind} ${o.start}`;
  if (s.seen.has(key)) return;
  s.seen.add(key);
  s.out.push(step ? { ...o, step } : o);
}

/** `{{variables}}` in a text (found in its source, so escapes do not move them) and expressions' names. */
function reads(s: Scan, n: Scalar, key: string | undefined, path: Path): void {
  const value = n.value as string;
  const [from, to] = n.range!;
  const raw = s.text.slice(from, to);
  for (const r of templateReads(raw))
    push(
      s,
      { kind: 'variable', name: r.name, start: from + r.index, end: from + r.index + r.name.length },
      path,
    );
  const quoted = n.type === 'QUOTE_DOUBLE' || n.type === 'QUOTE_SINGLE';
  const base = from + (quoted ? 1 : 0);
  if (/^\s*=/.test(value) || key === 'expr')
    for (const r of expressionReads(value))
      push(
        s,
        { kind: 'variable', name: r.name, start: base + r.index, end: base + r.index + r.name.length },
        path,
      );
  if (key === 'var') {
    const name = value.split('.')[0]!;
    push(s, { kind: 'variable', name, start: base, end: base + name.length }, path);
  }
}

/** A key and its value: what the key says the value is. */
function pair(s: Scan, key: Scalar, value: Node | null, path: Path): void {
  const k = String(key.value);
  const at = [...path, k];
  const parent = path.at(-1);
  const kr = key.range!;
  const inStep = path[0] === 'steps';
  if (!inStep || path.length >= 2) {
    const keys = path.slice(inStep ? 2 : 0).filter((x): x is string => typeof x === 'string');
    push(s, { kind: 'field', name: k, start: kr[0], end: kr[1], scope: inStep ? 'step' : 'flow', keys }, at);
  }
  if (parent === 'set' || parent === 'with' || (path[0] === 'computed' && path.length === 1))
    push(s, { kind: 'variable', name: k, start: kr[0], end: kr[1], def: true }, at);
  if (parent === 'on_event' || (path[0] === 'events' && path.length === 1)) s.ix.events.add(k);
  if (parent === 'intents') s.ix.intents.add(k);
  if (!isScalar(value) || !value.range || typeof value.value !== 'string') return;
  const v = value.value;
  const range = { start: value.range[0], end: value.range[1] };
  if ((k === 'save' || k === 'save_as') && /^\w+$/.test(v))
    push(s, { kind: 'variable', name: v, ...range, def: true }, at);
  // A step id the walk did not list (a kind whose walk leaves out a way out, a salvaged file).
  else if (STEP_KEYS.has(k) && path[0] === 'steps' && /^[A-Za-z]\w*$/.test(v))
    push(s, { kind: 'step', name: v, ...range, ...(s.ix.flowId ? { scope: s.ix.flowId } : {}) }, at);
  else if (k === 'type' && path[0] === 'steps' && path.length === 2)
    push(s, { kind: 'kind', name: v, ...range }, at);
  else if (NAMED[k]) push(s, { kind: NAMED[k], name: v, ...range }, at);
  else if (k === 'event') s.ix.events.add(v);
  else if (k === 'flow' && path.length === 0) push(s, { kind: 'flow', name: v, ...range, def: true }, at);
  reads(s, value, k, at);
}

/** Scans a node and what is under it. */
export function scanNode(node: Node, path: Path, s: Scan): void {
  if (isMap(node)) {
    for (const p of node.items) {
      if (!isPair(p) || !isScalar(p.key) || !p.key.range) continue;
      pair(s, p.key, p.value as Node | null, path);
      if (p.value && !isScalar(p.value)) scanNode(p.value as Node, [...path, String(p.key.value)], s);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (isScalar(item) && item.range && typeof item.value === 'string')
        reads(s, item, undefined, [...path, i]);
      else if (item) scanNode(item as Node, [...path, i], s);
    });
  }
}
