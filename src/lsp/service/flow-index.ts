/**
 * The index of one flow file: its steps, and every step id, flow id, message id, variable and registry
 * name written in it, with where. The step references and calls are the flows layer's own walk
 * (flow-walk.ts: each kind lists its ways out); variables are found with var-reads.ts and the kinds' own
 * `reads`; their types come from the data-flow graph (flow-graph.ts).
 */
import { isMap, isPair, isScalar, type Node, type Scalar } from 'yaml';
import { BUILTIN_VARS } from '../../flows/data-flow.ts';
import { buildGraph } from '../../flows/flow-graph.ts';
import { walkFlow } from '../../flows/flow-walk.ts';
import { projectKinds } from '../../flows/kinds/custom-adapter.ts';
import { attachProjectKinds } from '../../flows/kinds/custom-attach.ts';
import type { Path } from '../../flows/problems.ts';
import type { Registry } from '../../flows/registry.ts';
import { salvageFlow } from '../../flows/salvage.ts';
import { type FlowFile, flowFileSchema } from '../../flows/schema.ts';
import type { VarType } from '../../flows/var-types.ts';
import { readYaml } from '../../flows/yaml-source.ts';
import type { FlowIndex, Occurrence, StepInfo } from './model.ts';

export type { FlowIndex } from './model.ts';

import { linesOf } from './text.ts';
import { scanNode } from './yaml-scan.ts';

type Doc = ReturnType<typeof readYaml>['doc'];

/** The flow as the schema reads it, or what is left of it when the schema rejects parts. */
function validated(doc: Doc, registry: Registry): FlowFile | undefined {
  if (doc.errors.length && !doc.contents) return undefined;
  const kinds = projectKinds(registry);
  const data = doc.toJS({ maxAliasCount: -1 });
  const schema = flowFileSchema(kinds);
  const r = schema.safeParse(data);
  const flow = r.success ? r.data : salvageFlow(data, schema);
  if (flow) attachProjectKinds(flow.steps, kinds);
  return flow;
}

const scalarAt = (doc: Doc, path: Path): Scalar | undefined => {
  const n = doc.getIn(path, true);
  return isScalar(n) && n.range ? n : undefined;
};

/** The walk's step references, calls, texts, effects and tasks as occurrences. */
function walked(doc: Doc, flow: FlowFile, out: Occurrence[], ix: FlowIndex): void {
  let w: ReturnType<typeof walkFlow>;
  try {
    w = walkFlow(flow);
  } catch {
    return; // a salvaged flow the walk cannot read: the generic scan still has most names
  }
  const at = (path: Path, kind: Occurrence['kind'], name: string, scope?: string) => {
    const n = scalarAt(doc, path);
    if (!n || typeof n.value !== 'string') return;
    const step = path[0] === 'steps' ? String(path[1]) : undefined;
    out.push({
      kind,
      name,
      start: n.range![0],
      end: n.range![1],
      ...(scope ? { scope } : {}),
      ...(step ? { step } : {}),
    });
  };
  for (const r of w.refs) {
    if (r.path[0] !== 'migrate') at(r.path, 'step', r.to, flow.flow);
    const key = r.path.at(-1);
    if (typeof key === 'string') ix.stepKeys.add(key);
  }
  for (const c of w.calls) at(c.path, 'flow', c.flow);
  for (const e of w.effects) at(e.path, 'effect', e.name);
  for (const t of w.tasks) at([...t.path, 'task'], 'task', t.task.task);
  for (const t of w.texts) {
    const key = t.path.at(-1);
    if (typeof key === 'string') ix.textKeys.add(key);
    if (t.label)
      ix.labels.push({ text: t.text, ...(t.path[0] === 'steps' ? { step: String(t.path[1]) } : {}) });
    if (ix.i18n && t.path[0] !== 'texts' && !/\s/.test(t.text)) at(t.path, 'message', t.text);
    // A button's label is what a transcript presses (a message id's text in a flow with i18n is not linked).
    else if (t.label && !ix.i18n) at(t.path, 'button', t.text, flow.flow);
  }
}

/** Each step's id, kind, text and where its entry is. */
function stepsOf(doc: Doc): Map<string, StepInfo> {
  const steps = new Map<string, StepInfo>();
  const map = doc.getIn(['steps'], true);
  if (!isMap(map)) return steps;
  for (const pair of map.items) {
    if (!isPair(pair) || !isScalar(pair.key) || !pair.key.range) continue;
    const value = pair.value as Node | null;
    const get = (k: string) => (isMap(value) ? value.get(k) : undefined);
    const id = String(pair.key.value);
    const say = get('say');
    steps.set(id, {
      id,
      type: String(get('type') ?? ''),
      start: pair.key.range[0],
      end: pair.key.range[1],
      blockEnd: value?.range?.[2] ?? pair.key.range[2],
      ...(typeof say === 'string' ? { say } : {}),
    });
  }
  return steps;
}

/** The variables' types from the data-flow graph (a called flow's own are not followed here). */
function typesOf(flow: FlowFile | undefined, registry: Registry): Map<string, VarType> {
  const types = new Map(Object.entries(BUILTIN_VARS));
  if (!flow) return types;
  try {
    const g = buildGraph(flow, { registry, flows: new Map() }, () => ({
      names: new Set(),
      types: new Map(),
    }));
    for (const [k, t] of g.types) types.set(k, t);
  } catch {
    // a salvaged flow the graph cannot read: names without types
  }
  return types;
}

/** Indexes one flow file's text. */
export function indexFlow(file: string, text: string, registry: Registry): FlowIndex {
  const { doc } = readYaml(text, file);
  const flow = validated(doc, registry);
  const flowId = doc.get('flow');
  const ix: FlowIndex = {
    file,
    lines: linesOf(text),
    occurrences: [],
    ...(typeof flowId === 'string' ? { flowId } : {}),
    i18n: doc.get('i18n') !== undefined,
    steps: stepsOf(doc),
    types: typesOf(flow, registry),
    events: new Set(),
    intents: new Set(),
    stepKeys: new Set(),
    textKeys: new Set(),
    labels: [],
    ...(flow ? { flow } : {}),
  };
  const out: Occurrence[] = [];
  for (const s of ix.steps.values())
    out.push({
      kind: 'step',
      name: s.id,
      start: s.start,
      end: s.end,
      def: true,
      step: s.id,
      ...(ix.flowId ? { scope: ix.flowId } : {}),
    });
  if (flow) walked(doc, flow, out, ix);
  if (doc.contents)
    scanNode(doc.contents as Node, [], {
      text,
      out,
      ix,
      seen: new Set(out.map((o) => `${o.kind} ${o.start}`)),
    });
  for (const v of out)
    if (v.kind === 'variable' && v.def && !ix.types.has(v.name)) ix.types.set(v.name, { kind: 'unknown' });
  ix.occurrences = out.sort((a, b) => a.start - b.start || a.end - b.end);
  return ix;
}
