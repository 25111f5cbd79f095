/**
 * `botflow test --coverage`: per flow, the steps and transitions no transcript exercised, and skeleton
 * transcripts that walk the shortest path from the flow's start to each of them.
 */
import type { FlowDefinition } from '../engine/step/contract.ts';
import { kindOf } from '../flows/kinds/registry.ts';
import { skeletonTurn } from '../flows/kinds/views.ts';
import {
  edgeKey,
  edgeText,
  type FlowEdge,
  type FlowGraph,
  flowGraph,
  shortestPath,
} from './coverage-graph.ts';
import type { CoverageRecorder } from './coverage-recorder.ts';
import { type StepSource, stepSources, taskName, timerDelay } from './skeleton-steps.ts';

/** Coverage of one flow. */
export interface FlowCoverage {
  graph: FlowGraph;
  reachedSteps: number;
  missedSteps: string[];
  reachedEdges: number;
  missedEdges: FlowEdge[];
  /** The steps as written (the task a step starts, its timers' delays), for skeletons. */
  stepSource?: (path: string) => StepSource | undefined;
}

/** Compares what the recorder saw with the newest version of each flow. */
export function coverageReport(flows: FlowDefinition[], recorder: CoverageRecorder): FlowCoverage[] {
  const latest = new Map(flows.map((f) => [f.id, f]));
  return [...latest.values()].map((flow) => {
    const graph = flowGraph(flow.id, flow.machine);
    const steps = recorder.steps.get(flow.id) ?? new Set();
    const edges = recorder.edges.get(flow.id) ?? new Set();
    const missedSteps = graph.steps.filter((s) => !steps.has(s));
    const missedEdges = graph.edges.filter((e) => !edges.has(edgeKey(e)));
    return {
      graph,
      reachedSteps: graph.steps.length - missedSteps.length,
      missedSteps,
      reachedEdges: graph.edges.length - missedEdges.length,
      missedEdges,
      stepSource: stepSources(flow),
    };
  });
}

const pct = (n: number, of: number) => (of === 0 ? '100%' : `${Math.floor((100 * n) / of)}%`);

/** The report as text: one line per flow, then what is missing. */
export function formatCoverage(list: FlowCoverage[]): string {
  const lines: string[] = ['coverage (steps reached, transitions taken):'];
  for (const c of list) {
    const { steps, edges } = c.graph;
    lines.push(
      `  ${c.graph.flowId.padEnd(16)} steps ${c.reachedSteps}/${steps.length} (${pct(c.reachedSteps, steps.length)})  ` +
        `transitions ${c.reachedEdges}/${edges.length} (${pct(c.reachedEdges, edges.length)})`,
    );
    for (const s of c.missedSteps) lines.push(`      step not reached: ${s}`);
    for (const e of c.missedEdges) lines.push(`      transition not taken: ${edgeText(e)}`);
  }
  return lines.join('\n');
}

/** A task's outcome on an edge (`task done`, `task error slot_taken`, `task failed`) as a `tasks:` stub. */
function stubFor(label: string): string | undefined {
  if (label === 'task done') return '{ result: null } # TODO: a result as the task returns it';
  const codes = /^task error (\S+)$/.exec(label)?.[1];
  if (codes) return `{ error: ${codes.split('/')[0]} }`;
  if (label === 'task error' || label === 'task failed')
    return '{ error: failed } # TODO: the code it fails with';
  return undefined;
}

/**
 * What a person does to take an edge, as a skeleton turn: the turn the step's kind writes for it (an
 * input's answers and what they read), else the turn any step gets (a button pressed, a command, an event,
 * an answer, a timer waited for).
 */
function turnFor(e: FlowEdge, source: StepSource | undefined): string {
  const at = e.from === '*' ? 'any step' : e.from;
  const label = e.label;
  const own = source ? skeletonTurn(kindOf(source.step), source.step, label, at) : undefined;
  let action: string;
  if (own) action = own;
  else if (label.startsWith('button:')) action = `press: "TODO label of button ${label.slice(7)}"`;
  else if (label.startsWith('command:')) action = `say: "/${label.slice(8)}"`;
  else if (label.startsWith('event:')) action = `event: { ${label.slice(6)}: {} }   # TODO the payload`;
  // A kind that takes answers without saying how (a project's own): any answer.
  else if (label === 'accept') action = `say: "TODO an answer ${at} accepts"`;
  else if (label === 'invalid answer') action = `say: "TODO an answer ${at} refuses"`;
  else if (label === 'retries exhausted') action = `say: "TODO the last refused answer at ${at}"`;
  else if (label.startsWith('remind') || label === 'idle') {
    const delay = timerDelay(source, label);
    action = delay ? `wait: ${delay}` : 'wait: 1h   # TODO: use the step’s delay';
  } else action = `say: "TODO any text (${label})"`;
  return `  - ${action}   # ${edgeText(e)}\n    bot: { send: "TODO" }`;
}

/** Skeleton transcripts (YAML, one document each) for everything `coverage` missed. */
export function skeletons(coverage: FlowCoverage): string {
  const docs: string[] = [];
  const seen = new Set<string>();
  const targets: { name: string; path: FlowEdge[] | undefined }[] = [
    ...coverage.missedSteps.map((s) => ({
      name: `reach ${s}`,
      path: shortestPath(coverage.graph, { step: s }),
    })),
    ...coverage.missedEdges.map((e) => ({
      name: `take ${edgeText(e)}`,
      path: shortestPath(coverage.graph, { edge: e }),
    })),
  ];
  const source = (path: string) => (path === '*' ? undefined : coverage.stepSource?.(path));
  for (const { name, path } of targets) {
    if (!path) continue;
    // A task's result is no turn of the person's: it comes from a `tasks:` stub, one per call, in order.
    const stubs = new Map<string, string[]>();
    const turns: string[] = [];
    for (const e of path) {
      const stub = stubFor(e.label);
      const task = stub ? taskName(source(e.from)) : undefined;
      if (stub && task) stubs.set(task, [...(stubs.get(task) ?? []), stub]);
      else if (e.label !== 'next') turns.push(turnFor(e, source(e.from)));
    }
    const tasks = [...stubs].map(([task, list]) =>
      list.length === 1 ? `  ${task}: ${list[0]}` : `  ${task}:\n${list.map((l) => `    - ${l}`).join('\n')}`,
    );
    const key = [...tasks, ...turns].join('\n');
    if (seen.has(key)) continue;
    seen.add(key);
    docs.push(
      `# skeleton written by botflow test --coverage: replace every TODO, then move it into a transcript file\n` +
        `flow: ${coverage.graph.flowId}\nname: ${JSON.stringify(name)}\n` +
        (tasks.length ? `tasks:\n${tasks.join('\n')}\n` : '') +
        `turns:\n  - start: true\n    bot: { send: "TODO the first prompt" }\n${turns.join('\n')}`,
    );
  }
  return docs.join('\n---\n');
}
