/** A session's start runs the start step's entry once: effect factories are not called twice. */
import { describe, expect, it } from 'vitest';
import { step } from '../../src/engine/step/step.ts';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';

describe('starting a session', () => {
  it("runs the start step's entry (and its effects) exactly once", () => {
    let runs = 0;
    const registry = defineRegistry({
      effects: {
        count: () => {
          runs++;
          return [];
        },
      },
    });
    const source = `flow: once
start: hello
steps:
  hello:
    type: message
    say: "hi"
    do: [{ effect: count }]
    next: bye
  bye:
    type: end
`;
    const { flows, problems } = compileSources([{ file: 'once.flow.yaml', source }], registry, new Map());
    expect(problems).toEqual([]);
    const result = step(
      flows[0]!,
      { revision: 0, stepInstance: 0 },
      {
        type: 'start',
        input: {
          trigger: { kind: 'bot_started' },
          meta: { conversation: 'u:1', chatId: 1, userId: 1, now: 0 },
        },
      },
      { conversationKey: 'u:1', sign: () => 'sig' },
    );
    expect(result.calls.map((c) => c.op)).toEqual(['sendMessage']);
    expect(runs).toBe(1); // it was 2: the scope's actor computed the initial state once more
  });
});
