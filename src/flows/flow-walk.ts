/** Walks a flow file and lists what the linter and the graph need: texts, step references, conditions. */

import { elsewhereRoutes, onEventOf } from './event-steps.ts';
import { kindOf } from './kinds/registry.ts';
import type { FlowFile, Step } from './schema.ts';
import { taskRoutes, type Walker, walker } from './walker.ts';

export type { StepRef, TextRef } from './walker.ts';

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

/** One step: what every step may have, then its kind's own parts, then its events, in the order problems are reported. */
function walkStep(w: Walker, id: string, step: Step) {
  const p = ['steps', id] as const;
  walkStepCommon(w, id, step);
  if ('on_stale' in step && step.on_stale && typeof step.on_stale === 'object') {
    w.text([...p, 'on_stale', 'notify'], step.on_stale.notify);
  }
  kindOf(step).walk(step, w, id);
  for (const [name, r] of Object.entries(onEventOf(step)))
    w.route([...p, 'on_event', name], id, r, `event ${name}`);
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
