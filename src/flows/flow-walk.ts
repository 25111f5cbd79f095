/** Walks a flow file and lists what the linter and the graph need: texts, step references, conditions. */

import { buttonType } from './buttons.ts';
import { elsewhereRoutes, onEventOf } from './event-steps.ts';
import type {
  Button,
  Condition,
  FlowFile,
  HandoffStep,
  InputStep,
  Route,
  Step,
  TaskCall,
  Understand,
} from './schema.ts';
import type { Path } from './yaml-source.ts';

export interface TextRef {
  path: Path;
  text: string;
  /** A button label (limits 1..128) rather than a message text (≤ 4000). */
  label: boolean;
}
export interface StepRef {
  path: Path;
  from: string | undefined;
  to: string;
  /** How the graph labels the edge. */
  label: string;
}

/** The lists a walk fills, and how a text, a route, a task and an `understand:` block are listed. */
function walker() {
  const texts: TextRef[] = [];
  const refs: StepRef[] = [];
  const calls: { path: Path; flow: string; from?: string }[] = [];
  const conditions: { path: Path; condition: Condition }[] = [];
  const effects: { path: Path; name: string }[] = [];
  const tasks: { path: Path; from: string; task: TaskCall }[] = [];
  const text = (path: Path, t: string | undefined, label = false) => {
    if (t !== undefined) texts.push({ path, text: t, label });
  };
  const route = (path: Path, from: string | undefined, r: Route | undefined, label: string) => {
    if (!r) return;
    text([...path, 'say'], r.say);
    if (r.goto) refs.push({ path: [...path, 'goto'], from, to: r.goto, label });
    if (r.call) calls.push({ path: [...path, 'call'], flow: r.call, from });
    (r.do ?? []).forEach((d, i) => {
      if ('effect' in d) effects.push({ path: [...path, 'do', i, 'effect'], name: d.effect });
    });
  };
  /** Intent routes (`understand:`): one per intent, unclear and unknown. */
  const understand = (path: Path, from: string | undefined, u: Understand | undefined) => {
    for (const [name, r] of Object.entries(u?.intents ?? {}))
      route([...path, 'intents', name], from, r, `intent ${name}`);
    route([...path, 'unclear'], from, u?.unclear, 'unclear');
    route([...path, 'unknown'], from, u?.unknown, 'unknown');
  };
  const lists = { texts, refs, calls, conditions, effects, tasks };
  return { lists, ...lists, text, route, understand };
}

type Walker = ReturnType<typeof walker>;

/** A task's outcomes are routes out of its step, labelled as the graph shows them. */
function taskRoutes({ tasks, refs, route, text }: Walker, path: Path, from: string, t: TaskCall) {
  tasks.push({ path, from, task: t });
  const asRoute = (r: string | Route) => (typeof r === 'string' ? { goto: r } : r);
  const one = (key: string, r: string | Route | undefined, label: string) => {
    if (r !== undefined) route(typeof r === 'string' ? [...path] : [...path, key], from, asRoute(r), label);
  };
  if (typeof t.on_done === 'string')
    refs.push({ path: [...path, 'on_done'], from, to: t.on_done, label: 'done' });
  else one('on_done', t.on_done, 'done');
  if (typeof t.on_timeout === 'string')
    refs.push({ path: [...path, 'on_timeout'], from, to: t.on_timeout, label: 'timeout' });
  else one('on_timeout', t.on_timeout, 'timeout');
  const e = t.on_error;
  if (typeof e === 'string') refs.push({ path: [...path, 'on_error'], from, to: e, label: 'error' });
  else if (Array.isArray(e))
    e.forEach((r, i) => {
      route([...path, 'on_error', i], from, r, r.code ? `error ${[r.code].flat().join('/')}` : 'error');
    });
  else one('on_error', e, 'error');
  const w = t.while_running;
  if (w && typeof w === 'object') text([...path, 'while_running', 'ignore'], w.ignore);
}

/** The flow's own parts: its start, intents, commands, events elsewhere, defaults and texts. */
function walkFlowParts(w: Walker, flow: FlowFile) {
  const { refs, text, route } = w;
  refs.push({ path: ['start'], from: undefined, to: flow.start, label: 'start' });
  w.understand(['understand'], undefined, flow.understand);
  for (const [name, cmd] of Object.entries(flow.commands ?? {}))
    route(['commands', name], undefined, cmd, `/${name}`);
  for (const [name, r] of elsewhereRoutes(flow))
    route(['events', name, 'while_elsewhere'], undefined, r, `event ${name}`);
  const stale = flow.defaults?.on_stale;
  if (stale && typeof stale === 'object') text(['defaults', 'on_stale', 'notify'], stale.notify);
  (flow.defaults?.remind ?? []).forEach((r, i) => {
    text(['defaults', 'remind', i, 'say'], r.say);
  });
  text(['defaults', 'idle', 'say'], flow.defaults?.idle?.say);
  for (const [key, t] of Object.entries(flow.texts ?? {})) text(['texts', key], t);
}

/** What many kinds of step have: `say`, `understand`, `do`, reminders and idle. */
function walkStepCommon(w: Walker, id: string, step: Step) {
  const { text, effects, refs } = w;
  const p = ['steps', id] as const;
  if ('say' in step) text([...p, 'say'], step.say);
  if ('understand' in step) w.understand([...p, 'understand'], id, step.understand);
  if ('do' in step)
    (step.do ?? []).forEach((d, i) => {
      if ('effect' in d) effects.push({ path: [...p, 'do', i, 'effect'], name: d.effect });
      else if ('task' in d) taskRoutes(w, [...p, 'do', i], id, d);
    });
  if ('remind' in step)
    (step.remind ?? []).forEach((r, i) => {
      text([...p, 'remind', i, 'say'], r.say);
    });
  if ('idle' in step && step.idle) {
    text([...p, 'idle', 'say'], step.idle.say);
    refs.push({
      path: [...p, 'idle', 'goto'],
      from: id,
      to: step.idle.goto,
      label: `idle ${step.idle.after}`,
    });
  }
}

/** A handoff step: its texts, `return_to`, and the ways out when nobody took it or out of hours. */
function walkHandoff({ text, refs }: Walker, id: string, step: HandoffStep) {
  const p = ['steps', id] as const;
  for (const k of ['reason', 'summary', 'joined'] as const) text([...p, k], step[k]);
  text([...p, 'timeout', 'say'], step.timeout?.say);
  text([...p, 'out_of_hours', 'say'], step.out_of_hours?.say);
  refs.push({ path: [...p, 'return_to'], from: id, to: step.return_to, label: '/done' });
  if (step.timeout)
    refs.push({ path: [...p, 'timeout', 'goto'], from: id, to: step.timeout.goto, label: 'nobody took it' });
  if (step.out_of_hours)
    refs.push({
      path: [...p, 'out_of_hours', 'goto'],
      from: id,
      to: step.out_of_hours.goto,
      label: 'closed',
    });
}

/** A step's keyboard: each button's label and route. */
function walkKeyboard(
  { text, route }: Walker,
  id: string,
  keyboard: readonly (readonly Button[])[] | undefined,
) {
  (keyboard ?? []).forEach((row, r) => {
    row.forEach((b: Button, c) => {
      const bp = ['steps', id, 'keyboard', r, c];
      text([...bp, 'text'], b.text, true);
      route(bp, id, b, b.id ?? b.request ?? buttonType(b));
    });
  });
}

/** A step's `next`: one step, or entries with conditions. */
function walkNext({ refs, conditions }: Walker, id: string, step: Step & { next: unknown }) {
  const p = ['steps', id] as const;
  const next = step.next as string | readonly { goto: string; when?: Condition }[];
  if (typeof next === 'string')
    refs.push({ path: [...p, 'next'], from: id, to: next, label: step.type === 'input' ? 'valid' : '' });
  else
    next.forEach((n, i) => {
      refs.push({ path: [...p, 'next', i, 'goto'], from: id, to: n.goto, label: n.when ? 'when' : 'else' });
      if (n.when) conditions.push({ path: [...p, 'next', i, 'when'], condition: n.when });
    });
}

/** An input step: its error texts, options, `options_from` and what happens when retries run out. */
function walkInput({ text, route }: Walker, id: string, step: InputStep) {
  const p = ['steps', id] as const;
  text([...p, 'error'], step.error);
  (step.options ?? []).forEach((o, i) => {
    text([...p, 'options', i, 'text'], o.text, true);
  });
  if (step.options_from) {
    text([...p, 'options_from', 'text'], step.options_from.text, true);
    route([...p, 'options_from', 'empty'], id, step.options_from.empty, 'empty');
  }
  (step.validate ?? []).forEach((v, i) => {
    text([...p, 'validate', i, 'error'], v.error);
  });
  route([...p, 'retries', 'exhausted'], id, step.retries.exhausted, 'exhausted');
}

/** A branch step: its cases and `else`. */
function walkBranch({ refs, conditions }: Walker, id: string, step: Extract<Step, { type: 'branch' }>) {
  const p = ['steps', id] as const;
  step.cases.forEach((c, i) => {
    refs.push({ path: [...p, 'cases', i, 'goto'], from: id, to: c.goto, label: 'when' });
    conditions.push({ path: [...p, 'cases', i, 'when'], condition: c.when });
  });
  refs.push({ path: [...p, 'else'], from: id, to: step.else, label: 'else' });
}

/** One step, its parts in the order problems are reported. */
function walkStep(w: Walker, id: string, step: Step) {
  const p = ['steps', id] as const;
  walkStepCommon(w, id, step);
  if (step.type === 'handoff') walkHandoff(w, id, step);
  if ('on_stale' in step && step.on_stale && typeof step.on_stale === 'object') {
    w.text([...p, 'on_stale', 'notify'], step.on_stale.notify);
  }
  if ('keyboard' in step) walkKeyboard(w, id, step.keyboard);
  if ('next' in step) walkNext(w, id, step);
  if (step.type === 'input') walkInput(w, id, step);
  if (step.type === 'menu') w.route([...p, 'on_text'], id, step.on_text, 'text');
  for (const [name, r] of Object.entries(onEventOf(step)))
    w.route([...p, 'on_event', name], id, r, `event ${name}`);
  if (step.type === 'branch') walkBranch(w, id, step);
  if (step.type === 'call') w.calls.push({ path: [...p, 'flow'], flow: step.flow, from: id });
}

/** Every text, step reference, flow call, condition and registry name of a flow, with its path. */
export function walkFlow(flow: FlowFile) {
  const w = walker();
  walkFlowParts(w, flow);
  for (const [id, step] of Object.entries(flow.steps)) walkStep(w, id, step);
  (flow.migrate ?? []).forEach((m, i) => {
    for (const [old, to] of Object.entries(m.steps ?? {})) {
      w.refs.push({ path: ['migrate', i, 'steps', old], from: undefined, to, label: 'migrate' });
    }
    if (m.otherwise)
      w.refs.push({ path: ['migrate', i, 'otherwise'], from: undefined, to: m.otherwise, label: 'migrate' });
  });
  return w.lists;
}
