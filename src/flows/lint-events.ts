/**
 * Checks of the external events a flow names: every `on_event` name is declared somewhere (a flow's
 * `events:` or `triggers: - event:`, or the registry's `events`), so a typo is an error with a
 * did-you-mean rather than an event nobody ever receives; a declared payload schema is one botflow can
 * check; a trigger's `save_as` goes with an event. Payload types of `save_as` are checked with every
 * other variable (data-flow.ts, lint-vars.ts).
 */
import { onEventOf, payloadSchema } from './event-steps.ts';
import type { LintInput, Report } from './lint-input.ts';
import { closest } from './problems.ts';
import type { FlowFile } from './schema.ts';

/** The event names declared by `flows` (their `events:` and event triggers) and the registry. */
export function declaredEvents(flows: Iterable<FlowFile>, registryEvents: object | undefined): Set<string> {
  const names = new Set(Object.keys(registryEvents ?? {}));
  for (const f of flows) {
    for (const name of Object.keys(f.events ?? {})) names.add(name);
    for (const t of f.triggers ?? []) if (t.event) names.add(t.event);
  }
  return names;
}

/** Runs the event checks on one flow. */
export function lintEvents(x: LintInput, report: Report): void {
  const { flow } = x;
  const declared = declaredEvents([flow, ...x.flows.values()], x.registry.events);
  for (const [id, step] of Object.entries(flow.steps)) {
    for (const name of Object.keys(onEventOf(step))) {
      if (declared.has(name)) continue;
      const guess = closest(name, [...declared]);
      report(
        'unknown-event',
        ['steps', id, 'on_event', name],
        'error',
        `event "${name}" is declared nowhere: no flow's events: or trigger, and not the registry's events`,
        guess
          ? `did you mean "${guess}"?`
          : `declare it: events: { ${name}: { payload: { type: object } } }, or in the registry's events`,
        { key: true, ...(guess ? { change: guess } : {}) },
      );
    }
  }
  const used = new Set<string>();
  for (const f of [flow, ...x.flows.values()]) {
    for (const t of f.triggers ?? []) if (t.event) used.add(t.event);
    for (const [name, d] of Object.entries(f.events ?? {}))
      if (typeof d.while_elsewhere === 'object') used.add(name);
    for (const step of Object.values(f.steps))
      for (const name of Object.keys(onEventOf(step))) used.add(name);
  }
  for (const name of Object.keys(flow.events ?? {}))
    if (!used.has(name))
      report(
        'unused-event',
        ['events', name],
        'warning',
        `event "${name}" is declared, but no step takes it (on_event) and no flow starts on it`,
        'add it to a step: on_event: { … }, or to triggers: - event: …; or remove the declaration',
      );
  for (const [name, d] of Object.entries(flow.events ?? {})) {
    if (!d.payload) continue;
    const schema = payloadSchema(d.payload);
    if ('error' in schema)
      report(
        'bad-event-payload',
        ['events', name, 'payload'],
        'error',
        `the payload schema of event "${name}": ${schema.error}`,
      );
  }
  (flow.triggers ?? []).forEach((t, i) => {
    const kinds = ['bot_started', 'command', 'keyword', 'any_message', 'fallback', 'event'].filter(
      (k) => t[k as keyof typeof t] !== undefined,
    );
    if (t.save_as !== undefined && t.event === undefined)
      report(
        'bad-trigger',
        ['triggers', i, 'save_as'],
        'error',
        'save_as goes with an event trigger',
        'event: <name>',
      );
    if (t.event !== undefined && kinds.length > 1)
      report('bad-trigger', ['triggers', i], 'error', `one trigger per entry: ${kinds.join(' and ')}`);
  });
}
