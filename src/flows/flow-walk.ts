/** Walks a flow file and lists what the linter and the graph need: texts, step references, conditions. */

import { buttonType } from './buttons.ts';
import { elsewhereRoutes, onEventOf } from './event-steps.ts';
import type { Button, Condition, FlowFile, Route, TaskCall, Understand } from './schema.ts';
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

/** Every text, step reference, flow call, condition and registry name of a flow, with its path. */
export function walkFlow(flow: FlowFile) {
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
  /** A task's outcomes are routes out of its step, labelled as the graph shows them. */
  const taskRoutes = (path: Path, from: string, t: TaskCall) => {
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
  };
  /** Intent routes (`understand:`): one per intent, unclear and unknown. */
  const understand = (path: Path, from: string | undefined, u: Understand | undefined) => {
    for (const [name, r] of Object.entries(u?.intents ?? {}))
      route([...path, 'intents', name], from, r, `intent ${name}`);
    route([...path, 'unclear'], from, u?.unclear, 'unclear');
    route([...path, 'unknown'], from, u?.unknown, 'unknown');
  };
  refs.push({ path: ['start'], from: undefined, to: flow.start, label: 'start' });
  understand(['understand'], undefined, flow.understand);
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
  for (const [id, step] of Object.entries(flow.steps)) {
    const p = ['steps', id] as const;
    if ('say' in step) text([...p, 'say'], step.say);
    if ('understand' in step) understand([...p, 'understand'], id, step.understand);
    if ('do' in step)
      (step.do ?? []).forEach((d, i) => {
        if ('effect' in d) effects.push({ path: [...p, 'do', i, 'effect'], name: d.effect });
        else if ('task' in d) taskRoutes([...p, 'do', i], id, d);
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
    if (step.type === 'handoff') {
      for (const k of ['reason', 'summary', 'joined'] as const) text([...p, k], step[k]);
      text([...p, 'timeout', 'say'], step.timeout?.say);
      text([...p, 'out_of_hours', 'say'], step.out_of_hours?.say);
      refs.push({ path: [...p, 'return_to'], from: id, to: step.return_to, label: '/done' });
      if (step.timeout)
        refs.push({
          path: [...p, 'timeout', 'goto'],
          from: id,
          to: step.timeout.goto,
          label: 'nobody took it',
        });
      if (step.out_of_hours)
        refs.push({
          path: [...p, 'out_of_hours', 'goto'],
          from: id,
          to: step.out_of_hours.goto,
          label: 'closed',
        });
    }
    if ('on_stale' in step && step.on_stale && typeof step.on_stale === 'object') {
      text([...p, 'on_stale', 'notify'], step.on_stale.notify);
    }
    if ('keyboard' in step) {
      (step.keyboard ?? []).forEach((row, r) => {
        row.forEach((b: Button, c) => {
          const bp = [...p, 'keyboard', r, c];
          text([...bp, 'text'], b.text, true);
          route(bp, id, b, b.id ?? b.request ?? buttonType(b));
        });
      });
    }
    if ('next' in step) {
      if (typeof step.next === 'string')
        refs.push({
          path: [...p, 'next'],
          from: id,
          to: step.next,
          label: step.type === 'input' ? 'valid' : '',
        });
      else
        step.next.forEach((n, i) => {
          refs.push({
            path: [...p, 'next', i, 'goto'],
            from: id,
            to: n.goto,
            label: n.when ? 'when' : 'else',
          });
          if (n.when) conditions.push({ path: [...p, 'next', i, 'when'], condition: n.when });
        });
    }
    if (step.type === 'input') {
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
    if (step.type === 'menu') route([...p, 'on_text'], id, step.on_text, 'text');
    for (const [name, r] of Object.entries(onEventOf(step)))
      route([...p, 'on_event', name], id, r, `event ${name}`);
    if (step.type === 'branch') {
      step.cases.forEach((c, i) => {
        refs.push({ path: [...p, 'cases', i, 'goto'], from: id, to: c.goto, label: 'when' });
        conditions.push({ path: [...p, 'cases', i, 'when'], condition: c.when });
      });
      refs.push({ path: [...p, 'else'], from: id, to: step.else, label: 'else' });
    }
    if (step.type === 'call') {
      calls.push({ path: [...p, 'flow'], flow: step.flow, from: id });
    }
  }
  (flow.migrate ?? []).forEach((m, i) => {
    for (const [old, to] of Object.entries(m.steps ?? {})) {
      refs.push({ path: ['migrate', i, 'steps', old], from: undefined, to, label: 'migrate' });
    }
    if (m.otherwise)
      refs.push({ path: ['migrate', i, 'otherwise'], from: undefined, to: m.otherwise, label: 'migrate' });
  });
  return { texts, refs, calls, conditions, effects, tasks };
}
