/**
 * What a name at a place in a file is, and every place in the project where the same thing is written:
 * a step of one flow (its definition, its gotos, transcripts' `start_at`), a variable of a family of flows
 * that call each other (its sets and reads), a message id (the flows' texts, the catalogs' entries), a
 * flow id, a registry name.
 */
import type { FlowIndex } from './flow-index.ts';
import type { FileIndex, Occurrence } from './model.ts';
import { occurrenceAt } from './model.ts';
import type { Indexed, ProjectIndex } from './project-index.ts';
import { offsetAt } from './text.ts';

export interface Found {
  file: Indexed;
  occurrence: Occurrence;
  /** The flow the name belongs to (a step's, a variable's), when it has one. */
  flow?: FlowIndex;
}

/** The name at a position of a file of the project. */
export function foundAt(
  p: ProjectIndex,
  file: string,
  at: { line: number; character: number },
): Found | undefined {
  const f = p.fileOf(file);
  if (!f) return undefined;
  const occurrence = occurrenceAt(f.index, offsetAt(f.index.lines, at));
  if (!occurrence) return undefined;
  const flowId = occurrence.scope ?? (f.type === 'flow' ? f.index.flowId : undefined);
  const flow =
    f.type === 'flow' && occurrence.kind !== 'step' ? f.index : flowId ? p.flowById(flowId) : undefined;
  return { file: f, occurrence, ...(flow ? { flow } : {}) };
}

/** The flows whose variables are one conversation's: `flow` and those it calls or is called from. */
export function family(p: ProjectIndex, flow: FlowIndex): Set<string> {
  const edges = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a)!.add(b);
  };
  for (const f of p.flows)
    for (const o of f.occurrences)
      if (o.kind === 'flow' && !o.def && f.flowId) {
        link(f.flowId, o.name);
        link(o.name, f.flowId);
      }
  const out = new Set<string>();
  const todo = flow.flowId ? [flow.flowId] : [];
  while (todo.length) {
    const id = todo.pop()!;
    if (out.has(id)) continue;
    out.add(id);
    todo.push(...(edges.get(id) ?? []));
  }
  return out;
}

export interface Place {
  index: FileIndex;
  occurrence: Occurrence;
}

/** Every place the thing found is written, in the files of the project. */
export function placesOf(p: ProjectIndex, found: Found): Place[] {
  const { occurrence: o, flow } = found;
  const flowsOf = o.kind === 'variable' && flow ? family(p, flow) : undefined;
  const same = (x: Occurrence, scope: string | undefined) => {
    if (x.kind !== o.kind || x.name !== o.name) return false;
    if (o.kind === 'step' || o.kind === 'button')
      return (x.scope ?? scope) === (o.scope ?? found.flow?.flowId);
    if (o.kind === 'variable') return !!flowsOf && flowsOf.has(x.scope ?? scope ?? '');
    return true;
  };
  const out: Place[] = [];
  const files: { index: FileIndex; scope?: string }[] = [
    ...p.flows.map((f) => ({ index: f, ...(f.flowId ? { scope: f.flowId } : {}) })),
    ...p.catalogs.map((c) => ({ index: c })),
    ...p.transcripts.map((t) => ({ index: t })),
  ];
  for (const { index, scope } of files)
    for (const x of index.occurrences) if (same(x, scope)) out.push({ index, occurrence: x });
  return out;
}
