// A flow file for the conformance suite (test/engine/conformance.test.ts): an input step with a reminder
// and an idle timeout, a menu, a task with retries on the clock, an end. Compiled like flow files are,
// so it writes the funnel's step log and keeps its source (rebuilt for sessions pinned to it).
import { expect } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { rebuildFlow } from '../../src/flows/rebuild.ts';
import { defineRegistry, type TaskDefinition } from '../../src/flows/registry.ts';

export const ORDER = (version = 1, question = 'What is your name?') => `flow: order
version: ${version}
start: ask_name
triggers: [{ bot_started: true }]
commands:
  cancel: { say: Cancelled., goto: cancelled }
steps:
  ask_name:
    type: input
    say: "${question}"
    input: text
    retries: { max: 3, exhausted: { goto: cancelled } }
    save: name
    remind: [{ after: 1h, say: Still there? }]
    idle: { after: 1d, say: Put aside., goto: cancelled }
    next: pick
  pick:
    type: menu
    say: "v${version}: {{name}}, which size?"
    keyboard:
      - - { id: small, text: Small, goto: place }
        - { id: large, text: Large, goto: place }
  place:
    type: message
    say: Ordering…
    do:
      - task: place_order
        input: { name: "{{name}}" }
        save_as: order
        retry: { attempts: 3, backoff: 10s }
        on_error: { say: Sorry., goto: cancelled }
    next: placed
  placed: { type: end, say: "Ordered: {{order.id}}" }
  cancelled: { type: end, say: Bye. }
`;

/** The order flow's task: places the order at once. */
export const TASKS: Record<string, TaskDefinition> = { place_order: () => ({ id: 'A1' }) };

/** The order flow at `version`, compiled with `tasks` (a stub by default). */
export function orderFlows(
  version = 1,
  tasks: Record<string, TaskDefinition> = TASKS,
  question?: string,
): FlowDefinition[] {
  const registry = defineRegistry({ tasks });
  const compiled = compileSources(
    [{ file: 'order.flow.yaml', source: ORDER(version, question) }],
    registry,
    new Map(),
  );
  expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return compiled.flows;
}

/** Rebuilds a stored version of the order flow (the engine's `rebuildFlow`). */
export const rebuildOrder =
  (tasks: Record<string, TaskDefinition> = TASKS) =>
  (source: string): FlowDefinition =>
    rebuildFlow(source, { registry: defineRegistry({ tasks }) });
