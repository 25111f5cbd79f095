/**
 * The variables a flow can see, across the flows that call each other (a called flow shares its caller's
 * variables): what is set when it starts (from its callers' call sites), what each step is entered with,
 * and every variable's known type. Computed once per set of flows being checked.
 */
import { BUILTIN_VARS, type CallSite, type FlowGraph, solve } from './data-flow.ts';
import { buildGraph } from './flow-graph.ts';
import { kindOf } from './kinds/registry.ts';
import type { LintInput } from './lint-input.ts';
import type { FlowFile } from './schema.ts';
import { joinTypes, UNKNOWN, type VarType } from './var-types.ts';

export interface FlowScope {
  graph: FlowGraph;
  /** Set when the flow starts (by every caller, for a flow only ever called). */
  start: Set<string>;
  /** The variables set on entry to each reachable step. */
  entry: Map<string, Set<string>>;
  /** Every variable the flow can see, with its type. */
  types: Map<string, VarType>;
}

type X = Pick<LintInput, 'registry' | 'flows' | 'started'>;
interface End {
  names: Set<string>;
  types: Map<string, VarType>;
  returns?: VarType;
}
const caches = new WeakMap<Map<string, FlowFile>, WeakMap<FlowFile, Partial<FlowScope> & { end?: End }>>();

/**
 * What a called flow `f` sets on every path to its end (the steps whose kind `endsFlow`), and the type of
 * what they return (their kind's `returns`), from its graph.
 */
function endOfFlow(id: string, f: FlowFile, g: FlowGraph): End {
  const entry = solve(f, g, new Set());
  const ends = Object.entries(f.steps).filter(([sid, st]) => kindOf(st).endsFlow && entry.has(sid));
  const names = ends.length
    ? new Set([...entry.get(ends[0]![0])!].filter((v) => ends.every(([sid]) => entry.get(sid)!.has(v))))
    : new Set<string>();
  let returns: VarType | undefined;
  for (const [, st] of ends) {
    const given = kindOf(st).returns?.(st);
    if (given === undefined) continue;
    const t: VarType =
      typeof given === 'string'
        ? (g.types.get(given) ?? UNKNOWN)
        : {
            kind: 'object',
            fields: Object.fromEntries(given.map((r) => [r, g.types.get(r) ?? UNKNOWN])),
            from: `what ${id} returns`,
          };
    returns = returns ? joinTypes(returns, t) : t;
  }
  return { names, types: g.types, ...(returns ? { returns } : {}) };
}

/** A flow only events start holds the payload their `save_as` names from its first step. */
function eventStart(f: FlowFile): Set<string> | undefined {
  const triggers = f.triggers ?? [];
  if (!(triggers.length > 0 && triggers.every((t) => t.event && t.save_as))) return undefined;
  const names = new Set(triggers.map((t) => t.save_as!));
  return names.size === 1 ? names : new Set();
}

/**
 * What is set when `f` starts otherwise: what every campaign passes with `with:` (a trigger passes
 * nothing) and every call site (`sites`) has set.
 */
function startFromCallers(
  f: FlowFile,
  x: X,
  sites: { caller: FlowFile; site: CallSite }[],
  entryOf: (f: FlowFile) => Map<string, Set<string>>,
): Set<string> {
  let start: Set<string> | undefined;
  for (const names of f.triggers?.length ? [] : (x.started?.get(f.flow) ?? []))
    start = start ? new Set(names.filter((v) => start!.has(v))) : new Set(names);
  for (const { caller, site } of sites) {
    const entry = entryOf(caller);
    for (const step of site.steps) {
      const at = entry.get(step);
      if (!at) continue;
      const here = new Set([...at, ...site.extra]);
      start = start ? new Set([...start].filter((v) => here.has(v))) : here;
    }
  }
  return start ?? new Set();
}

/** The scope of `flow` among `x.flows`. */
export function scopeOf(flow: FlowFile, x: X): FlowScope {
  const c = caches.get(x.flows) ?? new WeakMap();
  caches.set(x.flows, c);
  const slot = (f: FlowFile) => {
    const s = c.get(f) ?? {};
    c.set(f, s);
    return s;
  };
  const busy = new Set<FlowFile>();
  const graphOf = (f: FlowFile): FlowGraph => {
    const s = slot(f);
    if (s.graph) return s.graph;
    if (busy.has(f)) return buildGraph(f, x, () => ({ names: new Set(), types: new Map() }));
    busy.add(f);
    s.graph = buildGraph(f, x, (id) => endOf(id));
    busy.delete(f);
    return s.graph;
  };
  /** What a called flow sets on every path to its end, and its return value's type. */
  const endOf = (id: string): End => {
    const f = x.flows.get(id);
    if (!f) return { names: new Set(), types: new Map() };
    const s = slot(f);
    if (s.end) return s.end;
    s.end = endOfFlow(id, f, graphOf(f));
    return s.end;
  };
  const callSites = (id: string) =>
    [...x.flows.values()].flatMap((caller) =>
      graphOf(caller)
        .calls.filter((k) => k.flow === id)
        .map((k) => ({ caller, site: k })),
    );
  const startOf = (f: FlowFile): Set<string> => {
    const s = slot(f);
    if (s.start) return s.start;
    s.start = new Set();
    s.start = eventStart(f) ?? startFromCallers(f, x, f.triggers?.length ? [] : callSites(f.flow), entryOf);
    return s.start;
  };
  const entryOf = (f: FlowFile): Map<string, Set<string>> => {
    const s = slot(f);
    s.entry ??= solve(f, graphOf(f), startOf(f));
    return s.entry;
  };
  const typesOf = (f: FlowFile, seen = new Set<FlowFile>()): Map<string, VarType> => {
    const s = slot(f);
    if (s.types) return s.types;
    seen.add(f);
    const types = new Map<string, VarType>(Object.entries(BUILTIN_VARS));
    const add = (from: Map<string, VarType>) => {
      for (const [k, t] of from) types.set(k, types.has(k) ? joinTypes(types.get(k)!, t) : t);
    };
    add(graphOf(f).types);
    for (const names of x.started?.get(f.flow) ?? [])
      for (const v of names) if (!types.has(v)) types.set(v, UNKNOWN);
    for (const { caller } of callSites(f.flow)) if (!seen.has(caller)) add(typesOf(caller, seen));
    s.types = types;
    return types;
  };
  return { graph: graphOf(flow), start: startOf(flow), entry: entryOf(flow), types: typesOf(flow) };
}
