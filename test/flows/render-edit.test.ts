/** `render: edit` redraws the message whose button was pressed; after a typed answer a new message is sent. */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

const flow = `flow: shop
start: ask_name
triggers:
  - bot_started: true
steps:
  ask_name:
    type: input
    say: "Your name?"
    input: text
    retries: { max: 2, exhausted: { goto: bye } }
    save: name
    next: menu
  menu:
    type: menu
    render: edit
    say: "Hi {{name}}, pick one"
    keyboard:
      - - { id: tea, text: "Tea", goto: tea }
  tea:
    type: menu
    render: edit
    say: "Tea it is"
    keyboard:
      - - { id: back, text: "Back", goto: menu }
  bye:
    type: end
`;

const transcript = `flow: shop
name: typed answer, then presses
turns:
  - start: true
    bot: { send: "Your name?" }
  - say: Ann
    bot: { send: { text: "Hi Ann, pick one", keyboard: [["Tea"]] } }
  - press: Tea
    bot: [{ answer: silent }, { edit: { text: "Tea it is", keyboard: [["Back"]] } }]
  - press: Back
    bot: [{ answer: silent }, { edit: "Hi Ann, pick one" }]
`;

describe('render: edit', () => {
  it('sends after a typed answer (the question stays above it) and edits on a press', async () => {
    const { flows, problems } = compileSources(
      [{ file: 'shop.flow.yaml', source: flow }],
      EMPTY_REGISTRY,
      new Map(),
    );
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    const parsed = parseTranscripts(transcript, 'shop.test.yaml');
    expect(parsed.problems).toEqual([]);
    const result = await runTranscript(parsed.transcripts[0]!, { flows });
    expect(result.failure?.report ?? 'passed').toBe('passed');
  }, 30_000);
});
