/**
 * The funnel of a flow, from the step log the engine writes (store/step-log.ts): for each step, how
 * many sessions reached it, how many are there now, how many stopped there, how many ended there, the
 * answers it refused, and the median time people spent on it. `botflow stats` prints it; the playground's
 * funnel page draws it (runtime/funnel-page.ts).
 */
import type { FlowDefinition } from '../engine/step/contract.ts';
import type { StepLogRow } from '../store/step-log.ts';

/** One step of a flow's funnel. */
export interface StepFunnel {
  step: string;
  /** Sessions that entered the step. */
  reached: number;
  /** Sessions at the step now (still running). */
  waiting: number;
  /** Sessions that stopped at the step without reaching an end (stopped, ended by support, started over). */
  stopped: number;
  /** Sessions that reached an end of the flow at the step (its end steps). */
  ended: number;
  /** Answers the step refused, in all. */
  retries: number;
  /** Sessions that had at least one answer refused at the step. */
  retriedSessions: number;
  /** Median time from entering the step to moving on (ms); null when nobody moved on yet. */
  medianMs: number | null;
}

/** A flow's funnel: its sessions, how many reached an end, and its steps in the flow's order. */
export interface FlowFunnel {
  flowId: string;
  sessions: number;
  /** Sessions that reached one of the flow's end steps. */
  ended: number;
  steps: StepFunnel[];
}

interface Tally {
  reached: Set<string>;
  waiting: number;
  stopped: number;
  ended: number;
  retries: number;
  retried: Set<string>;
  durations: number[];
}

const median = (values: number[]): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
};

/** The top-level steps of a flow in the order it declares them (nested ones are named `parent>child`). */
export function declaredSteps(flow: FlowDefinition): string[] {
  const states = (flow.machine.root as { states?: Record<string, unknown> }).states ?? {};
  return Object.keys(states).filter((s) => !s.startsWith('__'));
}

/** One stay of a session at a step, as the log tells it. */
interface Visit {
  session: string;
  flowId: string;
  step: string;
  enteredAt: number;
  leftAt: number | null;
  leftBy: 'next' | 'end' | 'stopped' | 'restart' | null;
  retries: number;
  sessionActive: boolean;
}

/** The visits the log's lines tell, reading them in conversation order then commit order. */
export function visitsOf(rows: readonly StepLogRow[]): Visit[] {
  const visits: Visit[] = [];
  let key: string | undefined;
  let open: Visit | undefined;
  let byInstance = new Map<number, Visit>();
  for (const row of rows) {
    if (row.conversationKey !== key) {
      key = row.conversationKey;
      open = undefined;
      byInstance = new Map();
    }
    const session = `${row.conversationKey}#${row.sessionRevision}`;
    if (row.event === 'enter' || row.event === 'finish') {
      if (open) {
        open.leftAt = row.at;
        open.leftBy = open.session === session ? 'next' : 'restart';
      }
      const visit: Visit = {
        session,
        flowId: row.flowId,
        step: row.step,
        enteredAt: row.at,
        leftAt: row.event === 'finish' ? row.at : null,
        leftBy: row.event === 'finish' ? 'end' : null,
        retries: 0,
        sessionActive: row.sessionActive,
      };
      visits.push(visit);
      byInstance.set(row.stepInstance, visit);
      open = row.event === 'enter' ? visit : undefined;
      continue;
    }
    const visit = byInstance.get(row.stepInstance);
    if (!visit) continue; // entered before the period asked for
    if (row.event === 'retry') visit.retries += row.n;
    else if (row.event === 'stop' && visit.leftAt === null) {
      visit.leftAt = row.at;
      visit.leftBy = 'stopped';
      if (open === visit) open = undefined;
    }
  }
  return visits;
}

/**
 * Tallies the log's `rows` into one funnel per flow. `flows` (when given) orders each flow's steps as
 * declared, and lists steps nobody reached yet with zeros; other steps (of older versions) follow, most
 * reached first.
 */
export function funnelOf(rows: readonly StepLogRow[], flows: readonly FlowDefinition[] = []): FlowFunnel[] {
  const byFlow = new Map<string, Map<string, Tally>>();
  const sessionsOf = new Map<string, Set<string>>();
  const endedOf = new Map<string, Set<string>>();
  for (const row of visitsOf(rows)) {
    const session = row.session;
    let steps = byFlow.get(row.flowId);
    if (!steps) {
      steps = new Map();
      byFlow.set(row.flowId, steps);
      sessionsOf.set(row.flowId, new Set());
      endedOf.set(row.flowId, new Set());
    }
    sessionsOf.get(row.flowId)!.add(session);
    let t = steps.get(row.step);
    if (!t) {
      t = {
        reached: new Set(),
        waiting: 0,
        stopped: 0,
        ended: 0,
        retries: 0,
        retried: new Set(),
        durations: [],
      };
      steps.set(row.step, t);
    }
    t.reached.add(session);
    t.retries += row.retries;
    if (row.retries > 0) t.retried.add(session);
    if (row.leftBy === 'next' && row.leftAt !== null) t.durations.push(row.leftAt - row.enteredAt);
    else if (row.leftBy === 'end') {
      t.ended += 1;
      endedOf.get(row.flowId)!.add(session);
    } else if (row.leftBy === 'stopped' || row.leftBy === 'restart') t.stopped += 1;
    else if (row.leftAt === null) {
      if (row.sessionActive) t.waiting += 1;
      else t.stopped += 1; // its session was stopped another way (support ended it)
    }
  }
  const ids = [...new Set([...flows.map((f) => f.id), ...byFlow.keys()])];
  return ids.map((flowId) => {
    const steps = byFlow.get(flowId) ?? new Map<string, Tally>();
    const flow = flows.find((f) => f.id === flowId);
    const declared = flow ? declaredSteps(flow) : [];
    // Declared order (a step inside a called flow after its call step); others most reached first.
    const order = (step: string) => {
      const i = declared.indexOf(step.split('>')[0]!);
      return i < 0 ? Number.POSITIVE_INFINITY : i;
    };
    const nested = (step: string) => (step.includes('>') ? 1 : 0);
    const reached = (step: string) => steps.get(step)?.reached.size ?? 0;
    const names = [...new Set([...declared, ...steps.keys()])].sort(
      (a, b) => order(a) - order(b) || nested(a) - nested(b) || reached(b) - reached(a),
    );
    return {
      flowId,
      sessions: sessionsOf.get(flowId)?.size ?? 0,
      ended: endedOf.get(flowId)?.size ?? 0,
      steps: names.map((step): StepFunnel => {
        const t = steps.get(step);
        return {
          step,
          reached: t?.reached.size ?? 0,
          waiting: t?.waiting ?? 0,
          stopped: t?.stopped ?? 0,
          ended: t?.ended ?? 0,
          retries: t?.retries ?? 0,
          retriedSessions: t?.retried.size ?? 0,
          medianMs: t ? median(t.durations) : null,
        };
      }),
    };
  });
}

/** A step as people read it: `__call_help>explain` (inside the called flow help) → `↪ help › explain`. */
export function stepLabel(step: string): string {
  return step
    .split('>')
    .map((part) => (part.startsWith('__call_') ? `↪ ${part.slice(7)}` : part))
    .join(' › ');
}

/** `1.2 s`, `14 min`, `3.5 h`, `2 d`. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return '–';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} d`;
}

const percent = (n: number, of: number) => (of === 0 ? '' : `${Math.round((100 * n) / of)}%`);

/** The funnel as text, for the terminal. */
export function describeFunnel(funnels: readonly FlowFunnel[], options: { since?: string } = {}): string {
  if (funnels.length === 0) return `no conversations recorded${options.since ? ` ${options.since}` : ''} yet`;
  const out: string[] = [];
  for (const f of funnels) {
    out.push(
      `${f.flowId}: ${f.sessions} conversation${f.sessions === 1 ? '' : 's'}, ${f.ended} reached an end` +
        (f.sessions ? ` (${percent(f.ended, f.sessions)})` : '') +
        (options.since ? `, ${options.since}` : ''),
    );
    const header = ['step', 'reached', '', 'waiting', 'stopped', 'ended', 'retries', 'median time'];
    const table = f.steps.map((s) => [
      stepLabel(s.step),
      String(s.reached),
      percent(s.reached, f.sessions),
      String(s.waiting),
      String(s.stopped),
      String(s.ended),
      s.retries
        ? `${s.retries} (${s.retriedSessions} ${s.retriedSessions === 1 ? 'person' : 'people'})`
        : '0',
      formatDuration(s.medianMs),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
    for (const r of [header, ...table]) {
      out.push(
        `  ${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}`,
      );
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}
