/**
 * External events in flow files: a step's `on_event` routes (wait, input and menu steps), the flow's queue
 * of events that came while the person was elsewhere (`while_elsewhere: queue`), a trigger's `save_as`, and
 * what the compiled flow tells the engine about each event it knows (`FlowDefinition.events`: the payload
 * check from the flow's JSON Schema and the registry's zod schema, the policy).
 */
import { z } from 'zod';
import {
  type EventDeclaration,
  type FlowEvent,
  type FlowInput,
  MAX_QUEUED_EVENTS,
} from '../engine/step/contract.ts';
import type { FlowFile, Step } from './kinds/steps.ts';
import type { Enqueue, FlowContext, StepEntry } from './machine-context.ts';
import { flowAction } from './machine-context.ts';
import type { Registry } from './registry.ts';
import { compileFlowRegex } from './safe-regex.ts';
import type { EventRoute } from './schema-events.ts';
import { payloadProblems } from './zod-issues.ts';

/** A step's `on_event` routes (none for steps that take no events). */
export function onEventOf(step: Step): Record<string, EventRoute> {
  return 'on_event' in step && step.on_event ? step.on_event : {};
}

/** The route a step takes for event `name` (`event:<name>` in the compiled route params). */
export function eventRouteOf(step: Step, which: string): EventRoute | undefined {
  return which.startsWith('event:') ? onEventOf(step)[which.slice(6)] : undefined;
}

/** The flow's routes for events on steps that do not take them (`while_elsewhere: { goto: step }`). */
export function elsewhereRoutes(flow: FlowFile): [string, EventRoute & { goto: string }][] {
  return Object.entries(flow.events ?? {}).flatMap(([name, d]) =>
    d.while_elsewhere && typeof d.while_elsewhere === 'object' ? [[name, d.while_elsewhere] as const] : [],
  );
}

/** The variables with the event's payload saved under the route's `save_as`. */
export function withEventPayload(c: FlowContext, route: EventRoute | undefined, event: FlowEvent) {
  if (!route?.save_as || event.type !== 'event') return c;
  return { ...c, vars: { ...c.vars, [route.save_as]: event.payload } };
}

/** Variables a flow started by `input` begins with: an event trigger's `save_as` holds the payload. */
export function triggerVars(flow: FlowFile, input: FlowInput | undefined): Record<string, unknown> {
  const t = input?.trigger;
  if (t?.kind !== 'event') return {};
  const saveAs = flow.triggers?.find((x) => x.event === t.name)?.save_as;
  return saveAs ? { [saveAs]: t.payload } : {};
}

/** The event guards and actions of a compiled flow. */
export function eventParts(entry: (key: string) => StepEntry) {
  return {
    guards: {
      event: ({ event }: { event: FlowEvent }, p: { name: string }) =>
        event.type === 'event' && event.name === p.name,
      canQueue: ({ context }: { context: FlowContext }) => (context.events?.length ?? 0) < MAX_QUEUED_EVENTS,
    },
    actions: {
      queueEvent: flowAction(({ context, event, enqueue }) => {
        if (event.type !== 'botflow.queue') return;
        enqueue.assign({ events: [...(context.events ?? []), event.event] });
      }),
      // On entering a step that takes events: the oldest queued one it takes is raised again, now.
      replayQueued: flowAction(({ context, event, enqueue }, p) => {
        replay(entry(p.step).step, context, event, enqueue);
      }),
    },
  };
}

function replay(step: Step, context: FlowContext, event: FlowEvent, enqueue: Enqueue): void {
  const routes = onEventOf(step);
  const i = (context.events ?? []).findIndex((q) => routes[q.name] !== undefined);
  if (i < 0) return;
  const queued = context.events![i]!;
  const meta = (event as { meta?: FlowEvent['meta'] }).meta;
  if (!meta) return;
  enqueue.assign({ events: context.events!.filter((_, j) => j !== i) });
  enqueue.raise({ type: 'event', name: queued.name, payload: queued.payload, meta });
}

/** Patterns in a JSON Schema, checked like every flow-file pattern (no catastrophic backtracking). */
function unsafePatterns(schema: unknown, out: string[] = []): string[] {
  if (Array.isArray(schema)) for (const x of schema) unsafePatterns(x, out);
  else if (schema && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'pattern' && typeof v === 'string') {
        const compiled = compileFlowRegex(v);
        if ('error' in compiled) out.push(`pattern ${JSON.stringify(v)} ${compiled.error}`);
      } else unsafePatterns(v, out);
    }
  }
  return out;
}

/** The zod schema of a flow file's JSON Schema, or the reason it cannot be used. */
export function payloadSchema(json: Record<string, unknown>): z.ZodType | { error: string } {
  const unsafe = unsafePatterns(json);
  if (unsafe.length > 0) return { error: unsafe.join('; ') };
  try {
    return z.fromJSONSchema(json as never) as z.ZodType;
  } catch (error) {
    return { error: `not a JSON Schema botflow can check: ${(error as Error).message}` };
  }
}

/** What events ask of a step's kind: its fields of the same names in kinds/contract.ts. */
export interface EventTraits {
  events?(step: Step): readonly string[];
  inlined?(step: Step): readonly string[];
}

/** The event names a flow file uses: its triggers, its steps' `on_event` (and their kinds') and its `events:`. */
export function eventNamesOf(flow: FlowFile, kindOf: (step: Step) => EventTraits): string[] {
  const names = new Set<string>(Object.keys(flow.events ?? {}));
  for (const t of flow.triggers ?? []) if (t.event) names.add(t.event);
  for (const step of Object.values(flow.steps)) {
    for (const name of Object.keys(onEventOf(step))) names.add(name);
    for (const name of kindOf(step).events?.(step) ?? []) names.add(name);
  }
  return [...names];
}

/** What the compiled flow tells the engine about the events it knows (and the registry's). */
export function eventDeclarations(
  flow: FlowFile,
  flows: ReadonlyMap<string, FlowFile>,
  registry: Registry,
  kindOf: (step: Step) => EventTraits,
): Record<string, EventDeclaration> {
  const names = new Set([...eventNamesOf(flow, kindOf), ...Object.keys(registry.events ?? {})]);
  // Steps of called flows run inside this one: their events are this flow's too.
  for (const step of Object.values(flow.steps)) {
    for (const inner of kindOf(step).inlined?.(step) ?? []) {
      const callee = flows.get(inner);
      if (callee) for (const name of eventNamesOf(callee, kindOf)) names.add(name);
    }
  }
  const out: Record<string, EventDeclaration> = {};
  for (const name of names) {
    const checks: z.ZodType[] = [];
    const json = flow.events?.[name]?.payload;
    if (json) {
      const schema = payloadSchema(json);
      if (!('error' in schema)) checks.push(schema);
    }
    const zod = registry.events?.[name];
    if (zod) checks.push(zod);
    const declared = flow.events?.[name]?.while_elsewhere;
    // A route to a step is the machine's own (a root transition): the engine sees the event taken.
    const policy = typeof declared === 'string' ? declared : undefined;
    out[name] = {
      ...(checks.length > 0
        ? {
            check: (payload: unknown) =>
              checks.flatMap((s) => payloadProblems(name, s.safeParse(payload), payload)),
          }
        : {}),
      ...(policy ? { whileElsewhere: policy } : {}),
    };
  }
  return out;
}

/** The context a flow starts with: a call's parameters, a deep link's payload, or an event's (`save_as`). */
export function startContext(input: FlowInput | undefined, flow: FlowFile): FlowContext {
  const t = input?.trigger;
  const vars: Record<string, unknown> =
    t?.kind === 'call'
      ? { ...(t.context ?? {}) }
      : t?.kind === 'bot_started' && t.payload
        ? { start_payload: t.payload }
        : triggerVars(flow, input);
  return { vars, retries: 0, ...(input?.meta.locale ? { locale: input.meta.locale } : {}) };
}
