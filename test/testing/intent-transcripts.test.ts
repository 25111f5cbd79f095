/**
 * Transcripts with intents: `intent:` on a said text stubs a registered classifier (no model), the
 * classification is recorded as a task result, and replay answers it from the recording.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { defineRegistry, TaskError } from '../../src/flows/registry.ts';
import { createRecorder } from '../../src/runtime/recorder.ts';
import { readRecording } from '../../src/runtime/recording.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { replay } from '../../src/testing/replay.ts';
import { runTranscript } from '../../src/testing/run.ts';

const FLOW = `
flow: cafe
start: hello
triggers: [{ command: start }]
steps:
  hello:
    type: menu
    say: How can I help?
    keyboard: [[{ id: hours, text: Opening hours, say: "9 to 5." }]]
    understand:
      classifier: nlu
      intents:
        book: { goto: booked, save_slots: true }
      unclear: { say: "Did you mean a table?" }
      unknown: { say: "Sorry, I did not get that." }
  booked: { type: end, say: "A table for {{guests}}." }
`;

// The real classifier would ask a model: transcripts never run it.
const registry = defineRegistry({
  tasks: {
    nlu: () => {
      throw new TaskError('no_model', 'transcripts must not reach the model');
    },
  },
});
const flows = () => {
  const r = compileSources([{ file: 'cafe.flow.yaml', source: FLOW }], registry, new Map());
  // Slots are not declared anywhere botflow check could see them: {{guests}} is warned about.
  expect(r.problems.filter((p) => p.severity === 'error').map(formatProblem)).toEqual([]);
  return r.flows;
};

async function run(yaml: string, recordTo?: string) {
  const parsed = parseTranscripts(yaml, 'cafe.test.yaml');
  expect(parsed.problems.map(formatProblem)).toEqual([]);
  return runTranscript(parsed.transcripts[0]!, {
    flows: flows(),
    ...(recordTo ? { recorder: (now: () => number) => createRecorder(recordTo, { now }) } : {}),
  });
}

const TRANSCRIPT = `flow: cafe
name: intents stubbed
turns:
  - say: /start
    bot: { send: How can I help? }
  - say: hmm, maybe something to eat
    intent: { name: book, confidence: 0.3 }
    bot: [{ task: nlu }, { send: Did you mean a table? }]
  - say: what a nice day
    intent: null
    bot: [{ task: nlu }, { send: "Sorry, I did not get that." }]
  - say: "I'd like a table for 4"
    intent: { name: book, slots: { guests: 4 } }
    bot:
      - task: { name: nlu, input: { text: "I'd like a table for 4", intents: [book] } }
      - send: A table for 4.
`;

describe('transcripts with intents', () => {
  it('stub a registered classifier by the text said: unclear, unknown, an intent with slots', async () => {
    const r = await run(TRANSCRIPT);
    expect(r.failure?.report).toBeUndefined();
    expect(r.passed).toBe(true);
  });

  it('fail when the stubbed intent leads elsewhere than the transcript says', async () => {
    const r = await run(TRANSCRIPT.replace('intent: null', 'intent: book'));
    expect(r.passed).toBe(false);
    expect(r.failure!.report).toContain('A table for');
  });

  it('refuse an intent on a turn that is not a said text', () => {
    const parsed = parseTranscripts(
      'flow: cafe\nname: n\nturns:\n  - press: Opening hours\n    intent: book\n    bot: nothing\n',
      'cafe.test.yaml',
    );
    expect(parsed.problems.map((p) => p.message)).toEqual([
      expect.stringContaining('intent stubs the classification of a text: it goes with say'),
    ]);
  });

  it('are recorded as task results, and replay answers them from the recording', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'botflow-intent-replay-')), 'r.jsonl');
    const r = await run(TRANSCRIPT, file);
    expect(r.failure?.report).toBeUndefined();
    const recording = readRecording(file);
    expect(recording.tasks?.map((t) => [t.task, (t.input as { text: string }).text, t.result])).toEqual([
      ['nlu', 'hmm, maybe something to eat', { intent: 'book', confidence: 0.3 }],
      ['nlu', 'what a nice day', { intent: null, confidence: 0 }],
      ['nlu', "I'd like a table for 4", { intent: 'book', confidence: 1, slots: { guests: 4 } }],
    ]);
    const same = await replay(recording, { flows: flows() });
    expect(same.differences.map((d) => d.text)).toEqual([]);
  });
});
