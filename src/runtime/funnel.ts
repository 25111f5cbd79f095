/**
 * The funnel of a flow, from the step log the engine writes (store/step-log.ts): for each step, how
 * many sessions reached it, how many are there now, how many stopped there, how many ended there, the
 * answers it refused, the texts nothing took there (with the latest few as samples), and the median time
 * people spent on it. `botflow stats` prints it; the playground's
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
  /** Times the flow failed at run time at the step (and took on_error, or apologised and ended). */
  failures: number;
  /**
   * Texts people typed at the step that nothing took (`input.unrecognised`: no button or option, no sure
   * intent), counted in the period even when the step was entered before it.
   */
  unrecognised: number;
  /** The latest distinct of those texts, newest first, at most 5 (none kept when `funnel.samples` is false). */
  samples: string[];
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

/** Visits of one step whose time to move on is kept for the median; beyond, a uniform sample of them. */
const DURATIONS_KEPT = 100_000;
/** Samples of unrecognised texts kept per step: the latest distinct ones. */
export const SAMPLES_KEPT = 5;

interface Tally {
  reached: number;
  waiting: number;
  stopped: number;
  ended: number;
  retries: number;
  retried: number;
  failures: number;
  unrecognised: number;
  /** The latest distinct samples, by when they were typed (at most SAMPLES_KEPT). */
  samples: { text: string; at: number }[];
  /** Times to move on: all of them, or a uniform sample once more than DURATIONS_KEPT were seen. */
  durations: number[];
  seen: number;
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
  session: number;
  flowId: string;
  step: string;
  enteredAt: number;
  leftAt: number | null;
  leftBy: 'next' | 'end' | 'stopped' | 'restart' | null;
  retries: number;
  sessionActive: boolean;
}

/**
 * Tallies the step log into funnels, a line at a time, the lines in conversation order then commit order
 * (as the stores read them): only one conversation's visits are held at a time, so a log of any length
 * can be read (`botflow stats` on a production database). A session counts once per step it reached.
 */
export class FunnelTally {
  readonly #flows = new Map<string, { steps: Map<string, Tally>; sessions: number; ended: number }>();
  #key: string | undefined;
  #visits: Visit[] = [];
  #open: Visit | undefined;
  #byInstance = new Map<number, Visit>();
  #failures: { flowId: string; step: string; n: number }[] = [];

  add(row: StepLogRow): void {
    if (row.conversationKey !== this.#key) {
      this.#flush();
      this.#key = row.conversationKey;
    }
    if (row.event === 'enter' || row.event === 'finish') {
      const open = this.#open;
      if (open) {
        open.leftAt = row.at;
        open.leftBy = open.session === row.sessionRevision ? 'next' : 'restart';
      }
      const finished = row.event === 'finish';
      const visit: Visit = {
        session: row.sessionRevision,
        flowId: row.flowId,
        step: row.step,
        enteredAt: row.at,
        leftAt: finished ? row.at : null,
        leftBy: finished ? 'end' : null,
        retries: 0,
        sessionActive: row.sessionActive,
      };
      this.#visits.push(visit);
      this.#byInstance.set(row.stepInstance, visit);
      this.#open = finished ? undefined : visit;
      return;
    }
    if (row.event === 'unrecognised') {
      const { t } = this.#tally(row.flowId, row.step);
      t.unrecognised += row.n;
      if (typeof row.sample === 'string') keepSample(t, row.sample, row.at);
      return;
    }
    if (row.event === 'fail') {
      // Counted at the step that failed, which the session may never have stopped at.
      this.#failures.push({ flowId: row.flowId, step: row.step, n: row.n });
      return;
    }
    const visit = this.#byInstance.get(row.stepInstance);
    if (!visit) return; // entered before the period asked for
    if (row.event === 'retry') visit.retries += row.n;
    else if (row.event === 'stop' && visit.leftAt === null) {
      visit.leftAt = row.at;
      visit.leftBy = 'stopped';
      if (this.#open === visit) this.#open = undefined;
    }
  }

  /** Counts the visits of the conversation read so far: each session once per step it reached. */
  #flush(): void {
    const reached = new Set<string>();
    const retried = new Set<string>();
    const sessions = new Set<string>();
    const ended = new Set<string>();
    for (const f of this.#failures) this.#tally(f.flowId, f.step).t.failures += f.n;
    for (const v of this.#visits) {
      const { flow, t } = this.#tally(v.flowId, v.step);
      const inFlow = `${v.flowId}\n${v.session}`;
      const atStep = `${inFlow}\n${v.step}`;
      if (!sessions.has(inFlow)) {
        sessions.add(inFlow);
        flow.sessions += 1;
      }
      if (!reached.has(atStep)) {
        reached.add(atStep);
        t.reached += 1;
      }
      t.retries += v.retries;
      if (v.retries > 0 && !retried.has(atStep)) {
        retried.add(atStep);
        t.retried += 1;
      }
      if (v.leftBy === 'next' && v.leftAt !== null) keepDuration(t, v.leftAt - v.enteredAt);
      else if (v.leftBy === 'end') {
        t.ended += 1;
        if (!ended.has(inFlow)) {
          ended.add(inFlow);
          flow.ended += 1;
        }
      } else if (v.leftBy === 'stopped' || v.leftBy === 'restart') t.stopped += 1;
      else if (v.leftAt === null) {
        if (v.sessionActive) t.waiting += 1;
        else t.stopped += 1; // its session was stopped another way (support ended it)
      }
    }
    this.#visits = [];
    this.#failures = [];
    this.#open = undefined;
    this.#byInstance = new Map();
  }

  /** The tallies of a flow and one of its steps, made on first use. */
  #tally(flowId: string, step: string) {
    let flow = this.#flows.get(flowId);
    if (!flow) {
      flow = { steps: new Map(), sessions: 0, ended: 0 };
      this.#flows.set(flowId, flow);
    }
    let t = flow.steps.get(step);
    if (!t) {
      t = {
        reached: 0,
        waiting: 0,
        stopped: 0,
        ended: 0,
        retries: 0,
        retried: 0,
        failures: 0,
        unrecognised: 0,
        samples: [],
        durations: [],
        seen: 0,
      };
      flow.steps.set(step, t);
    }
    return { flow, t };
  }

  /**
   * One funnel per flow. `flows` (when given) orders each flow's steps as declared, and lists steps
   * nobody reached yet with zeros; other steps (of older versions) follow, most reached first.
   */
  result(flows: readonly FlowDefinition[] = []): FlowFunnel[] {
    this.#flush();
    const ids = [...new Set([...flows.map((f) => f.id), ...this.#flows.keys()])];
    return ids.map((flowId) => {
      const tallied = this.#flows.get(flowId);
      const steps = tallied?.steps ?? new Map<string, Tally>();
      const flow = flows.find((f) => f.id === flowId);
      const declared = flow ? declaredSteps(flow) : [];
      // Declared order (a step inside a called flow after its call step); others most reached first.
      const order = (step: string) => {
        const i = declared.indexOf(step.split('>')[0]!);
        return i < 0 ? Number.POSITIVE_INFINITY : i;
      };
      const nested = (step: string) => (step.includes('>') ? 1 : 0);
      const reached = (step: string) => steps.get(step)?.reached ?? 0;
      const names = [...new Set([...declared, ...steps.keys()])].sort(
        (a, b) => order(a) - order(b) || nested(a) - nested(b) || reached(b) - reached(a),
      );
      return {
        flowId,
        sessions: tallied?.sessions ?? 0,
        ended: tallied?.ended ?? 0,
        steps: names.map((step): StepFunnel => {
          const t = steps.get(step);
          return {
            step,
            reached: t?.reached ?? 0,
            waiting: t?.waiting ?? 0,
            stopped: t?.stopped ?? 0,
            ended: t?.ended ?? 0,
            retries: t?.retries ?? 0,
            retriedSessions: t?.retried ?? 0,
            failures: t?.failures ?? 0,
            unrecognised: t?.unrecognised ?? 0,
            samples: t ? [...t.samples].sort((a, b) => b.at - a.at).map((x) => x.text) : [],
            medianMs: t ? median(t.durations) : null,
          };
        }),
      };
    });
  }
}

/** Keeps a time to move on: every one up to DURATIONS_KEPT, then a uniform sample (reservoir). */
function keepDuration(t: Tally, ms: number): void {
  t.seen += 1;
  if (t.durations.length < DURATIONS_KEPT) t.durations.push(ms);
  else {
    const i = Math.floor(Math.random() * t.seen);
    if (i < DURATIONS_KEPT) t.durations[i] = ms;
  }
}

/** The same text typed again, told apart from another by letters only (case, spaces around and within). */
const sameText = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Keeps a sample if it is among the latest SAMPLES_KEPT distinct texts at the step (the log is read in
 * conversation order, not time order): a text seen again keeps its latest time and spelling.
 */
function keepSample(t: Tally, text: string, at: number): void {
  const key = sameText(text);
  if (!key) return;
  const same = t.samples.find((x) => sameText(x.text) === key);
  if (same) {
    if (at >= same.at) Object.assign(same, { text, at });
    return;
  }
  if (t.samples.length < SAMPLES_KEPT) {
    t.samples.push({ text, at });
    return;
  }
  let oldest = 0;
  for (let i = 1; i < t.samples.length; i++) if (t.samples[i]!.at < t.samples[oldest]!.at) oldest = i;
  if (at > t.samples[oldest]!.at) t.samples[oldest] = { text, at };
}

/** Tallies the log's `rows` (in conversation order, then commit order) into one funnel per flow. */
export function funnelOf(rows: Iterable<StepLogRow>, flows: readonly FlowDefinition[] = []): FlowFunnel[] {
  const tally = new FunnelTally();
  for (const row of rows) tally.add(row);
  return tally.result(flows);
}

/** The same over lines read a page at a time (PostgreSQL). */
export async function funnelOfPages(
  rows: AsyncIterable<StepLogRow> | Iterable<StepLogRow>,
  flows: readonly FlowDefinition[] = [],
): Promise<FlowFunnel[]> {
  const tally = new FunnelTally();
  for await (const row of rows) tally.add(row);
  return tally.result(flows);
}
