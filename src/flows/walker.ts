/**
 * What a walk of a flow file fills (flow-walk.ts): its texts, step references, flow calls, conditions,
 * effects and tasks, each with its path, and how the parts that several kinds of step share are walked
 * (a route, an `understand:` block, a task's outcomes, a keyboard, a `next`). A kind's `walk`
 * (kinds/<kind>/index.ts) lists its own parts with these.
 */
import { buttonType } from './buttons.ts';
import type { Button, TaskCall, Understand } from './kinds/fields.ts';
import type { Path } from './problems.ts';
import type { Condition, Route } from './schema-parts.ts';

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
export function walker() {
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

export type Walker = ReturnType<typeof walker>;

/** A task's outcomes are routes out of its step, labelled as the graph shows them. */
export function taskRoutes({ tasks, refs, route, text }: Walker, path: Path, from: string, t: TaskCall) {
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

/** A step's keyboard: each button's label and route. */
export function walkKeyboard(
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

/** A step's `next`: one step (labelled `label`: an input's is "valid"), or entries with conditions. */
export function walkNext(
  { refs, conditions }: Walker,
  id: string,
  next: string | readonly { goto: string; when?: Condition }[],
  label = '',
) {
  const p = ['steps', id] as const;
  if (typeof next === 'string') refs.push({ path: [...p, 'next'], from: id, to: next, label });
  else
    next.forEach((n, i) => {
      refs.push({ path: [...p, 'next', i, 'goto'], from: id, to: n.goto, label: n.when ? 'when' : 'else' });
      if (n.when) conditions.push({ path: [...p, 'next', i, 'when'], condition: n.when });
    });
}
