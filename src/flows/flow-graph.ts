/**
 * The step graph of one flow (data-flow.ts): its edges — answers, buttons, `next` entries, branch cases, task
 * outcomes, calls, intents, events, commands from every waiting step, idle timers — and every assignment
 * with what it is known to hold. Each kind adds its own edges (its `graph`); what every step may have is here.
 */
import { type FlowGraph, setNames } from './data-flow.ts';
import { elsewhereRoutes, onEventOf } from './event-steps.ts';
import { type Builder, type EndOf, eventPayloadType, graphBuilder, type Needs } from './graph-builder.ts';
import { kindOf } from './kinds/registry.ts';
import { classifierSlots } from './registry.ts';
import type { FlowFile, Step, Understand } from './schema.ts';
import { KEYWORDS_CLASSIFIER } from './schema-intents.ts';
import { slotsOf } from './understand/keywords.ts';
import { typeOfZod } from './var-types.ts';

/** Intent routes (`understand:`); `save_slots` sets the slots the keyword classifier always reads. */
function understandEdges({ flow, x, assign, route }: Builder, from: string, u: Understand | undefined) {
  const keywords = !u?.classifier || u.classifier === KEYWORDS_CLASSIFIER;
  for (const [name, r] of Object.entries(u?.intents ?? {})) {
    // The keyword classifier's slots are its patterns' named groups (texts); a registered one declares its own.
    const declared =
      r.save_slots && !keywords ? classifierSlots(x.registry, u!.classifier!, name) : undefined;
    const slots = !r.save_slots
      ? []
      : keywords
        ? slotsOf(flow.intents ?? {}, name)
        : Object.keys(declared ?? {});
    for (const slot of slots)
      assign(
        slot,
        declared ? typeOfZod(declared[slot], `slot ${slot} of ${u!.classifier}`) : { kind: 'text' },
      );
    route(from, r, `intent ${name}`, slots);
  }
  route(from, u?.unclear, 'unclear');
  route(from, u?.unknown, 'unknown');
}

/** What every kind of step may have: `set:`, intents, buttons, idle, events. */
function commonEdges(g: Builder, id: string, step: Step) {
  const { flow, x, assign, assignSet, route, edge, onEntry } = g;
  assignSet(step);
  if (kindOf(step).understands) {
    understandEdges(g, id, 'understand' in step ? step.understand : undefined);
    understandEdges(g, id, flow.understand);
  }
  onEntry.set(id, new Set(setNames(step)));
  const buttons = 'keyboard' in step ? (step.keyboard ?? []).flat() : [];
  for (const b of buttons) if (b.id) route(id, b, b.id, b.value !== undefined ? ['button_value'] : []);
  if ('idle' in step && step.idle) edge(id, step.idle.goto, 'idle', []);
  for (const [name, r] of Object.entries(onEventOf(step))) {
    if (r.save_as) assign(r.save_as, eventPayloadType(name, flow, x));
    route(id, r, `event ${name}`, r.save_as ? [r.save_as] : []);
  }
}

/** What reaches every waiting step: a trigger's payload, events while elsewhere, the flow's commands. */
function flowWideEdges({ flow, x, assign, assignSet, route, waiting, calls }: Builder) {
  for (const t of flow.triggers ?? [])
    if (t.event && t.save_as) assign(t.save_as, eventPayloadType(t.event, flow, x));
  for (const [name, r] of elsewhereRoutes(flow)) {
    if (r.save_as) assign(r.save_as, eventPayloadType(name, flow, x));
    for (const w of waiting) route(w, r, `event ${name}`, r.save_as ? [r.save_as] : []);
  }
  for (const [name, cmd] of Object.entries(flow.commands ?? {})) {
    assignSet(cmd);
    if (cmd.call) calls.push({ flow: cmd.call, steps: waiting, extra: new Set(setNames(cmd)) });
    for (const w of waiting) route(w, cmd, `/${name}`);
  }
}

/** Builds the graph of `flow`; `endOf(callee)` is what a called flow sets on every path to its end. */
export function buildGraph(flow: FlowFile, x: Needs, endOf: EndOf): FlowGraph {
  const g = graphBuilder(flow, x, endOf);
  for (const [id, step] of Object.entries(flow.steps)) {
    commonEdges(g, id, step);
    kindOf(step).graph(step, g, id);
  }
  flowWideEdges(g);
  for (const f of g.later) f();
  return g.graph;
}
