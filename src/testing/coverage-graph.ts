/**
 * The static shape of a compiled flow, for coverage: its steps and the transitions between them, read from
 * the XState machine (state nodes, their transitions and the flows' named actions).
 */
import type { AnyStateMachine } from 'xstate';

/** One transition a transcript can exercise. `to` is absent for a handler that stays (invalid answer, reminder). */
export interface FlowEdge {
  from: string;
  label: string;
  to?: string;
  /** Taken only when a condition holds (an earlier guarded branch of the same handler): paths avoid it. */
  conditional?: boolean;
}

/** Steps and transitions of one flow. */
export interface FlowGraph {
  flowId: string;
  start: string;
  steps: string[];
  edges: FlowEdge[];
}

/** `from|label|to`: how edges are compared. */
export const edgeKey = (e: FlowEdge): string => `${e.from}|${e.label}|${e.to ?? ''}`;

/** Human form: `ask_age --accept--> ask_email`. */
export const edgeText = (e: FlowEdge): string =>
  `${e.from === '*' ? '(any step)' : e.from} --${e.label}--> ${e.to ?? '(stays)'}`;

interface Node {
  key: string;
  path: string[];
  type: string;
  states: Record<string, Node>;
  transitions: Map<string, Transition[]>;
  always?: Transition[];
  initial?: { target: Node[] };
}
interface Transition {
  target?: Node[];
  actions: { type: string; params?: Record<string, unknown> }[];
}

const SKIPPED_EVENTS = new Set(['botflow.rerender', 'effect.done', 'bot_started']);

/** A label for a handler action as the flows' runtime names it (also used when observing). */
export function handlerLabel(type: string, params: Record<string, unknown>): string | undefined {
  if (type === 'route') return String(params.route);
  if (type === 'accept') return 'accept';
  if (type === 'reject') return params.last ? 'retries exhausted' : 'invalid answer';
  if (type === 'remind') return `remind ${Number(params.index) + 1}`;
  if (type === 'taskDone') return 'task done';
  if (type === 'taskError') return String(params.label ?? 'task failed');
  // A project's own kind of step (defineStepKind): the exit its answer took, or its refusal.
  if (type === 'kindGo') return String(params.exit);
  if (type === 'kindRefuse') return 'refused';
  if (type === 'intentRoute') return params.which ? String(params.which) : `intent ${String(params.intent)}`;
  return undefined;
}

// `__failed` (where a flow ends after a run-time failure) is plumbing too: not a step to cover.
const isContainer = (n: Node) =>
  n.key.startsWith('__return') || n.key.startsWith('__back') || n.key === '__failed' || n.type === 'compound';
const stepOf = (n: Node): string => {
  let node = n;
  while (node.type === 'compound' && node.initial?.target[0]) node = node.initial.target[0];
  return node.path.join('>');
};

/** Reads the steps and transitions of a compiled flow machine. */
export function flowGraph(flowId: string, machine: AnyStateMachine): FlowGraph {
  const root = machine.root as unknown as Node;
  const steps: string[] = [];
  const edges = new Map<string, FlowEdge>();
  const add = (e: FlowEdge) => edges.set(edgeKey(e), e);
  const visit = (node: Node, from: string) => {
    for (const [event, list] of node.transitions ?? []) {
      if (SKIPPED_EVENTS.has(event) || event.startsWith('xstate.')) continue;
      const labelled = list.map((t) => ({
        t,
        handler: t.actions.map((a) => handlerLabel(a.type, a.params ?? {})).find(Boolean),
      }));
      labelled.forEach(({ t, handler }, i) => {
        if (!handler) return;
        // A global intent is one route from any step, like a command (covered once, from wherever).
        const global = t.actions.some((a) => a.type === 'intentRoute' && a.params?.global === true);
        const target = t.target?.[0];
        const later = labelled.slice(i + 1).some((o) => o.handler === handler && o.t.target?.[0]);
        // An answer after `come_back` passes through __back to the step the edit started from.
        if (target?.key.startsWith('__back')) {
          for (const back of target.always ?? []) {
            const to = back.target?.[0];
            if (to) add({ from, label: handler, to: stepOf(to), conditional: true });
          }
          return;
        }
        add({
          from: global ? '*' : from,
          label: handler,
          ...(target ? { to: stepOf(target) } : {}),
          ...(target && later ? { conditional: true } : {}),
        });
      });
    }
    for (const t of node.always ?? []) {
      const target = t.target?.[0];
      // An eventless route of its own (an empty `options_from` list) is named by its handler.
      const handler = t.actions.map((a) => handlerLabel(a.type, a.params ?? {})).find(Boolean);
      if (target && !isContainer(node)) add({ from, label: handler ?? 'next', to: stepOf(target) });
    }
  };
  visit(root, '*');
  const walk = (node: Node) => {
    for (const child of Object.values(node.states ?? {})) {
      if (!isContainer(child)) {
        const key = child.path.join('>');
        steps.push(key);
        visit(child, key);
      }
      walk(child);
    }
  };
  walk(root);
  return { flowId, start: stepOf(root), steps, edges: [...edges.values()] };
}

/**
 * The cheapest list of edges from the flow's start to `target` (a step, or an edge to take last), or
 * undefined. A conditional edge costs more than a default one, so paths follow the flow's usual route.
 */
export function shortestPath(
  graph: FlowGraph,
  target: { step?: string; edge?: FlowEdge },
): FlowEdge[] | undefined {
  const globals = graph.edges.filter((e) => e.from === '*');
  const out = (step: string) => [...graph.edges.filter((e) => e.from === step), ...globals];
  const best = new Map<string, { cost: number; path: FlowEdge[] }>([[graph.start, { cost: 0, path: [] }]]);
  const open = new Set([graph.start]);
  while (open.size) {
    const step = [...open].reduce((a, b) => (best.get(a)!.cost <= best.get(b)!.cost ? a : b));
    open.delete(step);
    const { cost, path } = best.get(step)!;
    if (target.step === step) return path;
    const e = target.edge;
    if (e && (e.from === step || e.from === '*')) return [...path, e];
    for (const edge of out(step)) {
      if (!edge.to) continue;
      const c = cost + (edge.conditional ? 10 : 1);
      if ((best.get(edge.to)?.cost ?? Number.POSITIVE_INFINITY) <= c) continue;
      best.set(edge.to, { cost: c, path: [...path, edge] });
      open.add(edge.to);
    }
  }
  return undefined;
}
