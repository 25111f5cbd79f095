/**
 * Transcripts with tasks, over the sandbox: tasks are stubbed by the transcript (never the real systems),
 * asserted with their input, retried on the virtual clock, and a task nobody stubbed fails with a hint.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { createRecorder } from '../../src/runtime/recorder.ts';
import { readRecording } from '../../src/runtime/recording.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { replay } from '../../src/testing/replay.ts';
import { runTranscript } from '../../src/testing/run.ts';

const FLOW = `
flow: table
start: party
triggers: [{ command: book }]
steps:
  party:
    type: input
    say: How many?
    input: integer
    retries: { max: 3, exhausted: { goto: sorry } }
    save: party
    next: find
  find:
    type: message
    say: Looking…
    do:
      - task: find_slots
        input: { party: "{{party}}" }
        save_as: slots
        retry: { attempts: 2, backoff: 5s }
        on_error:
          - { code: closed, say: "Closed that day.", goto: sorry }
          - { say: "Our system is down.", goto: sorry }
    next: done
  done: { type: end, say: "Free: {{slots}}" }
  sorry: { type: end, say: Sorry. }
`;

let flows: FlowDefinition[] | undefined;
function compiled(source = FLOW): FlowDefinition[] {
  if (flows && source === FLOW) return flows;
  const registry = defineRegistry({ tasks: { find_slots: () => [] } });
  const r = compileSources([{ file: 'table.flow.yaml', source }], registry, new Map());
  expect(r.problems.map(formatProblem)).toEqual([]);
  if (source === FLOW) flows = r.flows;
  return r.flows;
}

async function run(yaml: string, recordTo?: string) {
  const parsed = parseTranscripts(yaml, 'table.test.yaml');
  expect(parsed.problems.map(formatProblem)).toEqual([]);
  return runTranscript(parsed.transcripts[0]!, {
    flows: compiled(),
    ...(recordTo ? { recorder: (now: () => number) => createRecorder(recordTo, { now }) } : {}),
  });
}

const HEAD = 'flow: table\nname: n\n';
const BOOK = `  - say: /book
    bot: { send: How many? }
`;

describe('transcripts with tasks', () => {
  it('stub a task, assert its input, and see the result', async () => {
    const r = await run(`${HEAD}tasks:
  find_slots: { result: ["18:00"] }
turns:
${BOOK}  - say: "4"
    bot:
      - send: Looking…
      - task: { name: find_slots, input: { party: 4 } }
      - send: "Free: 18:00"
`);
    expect(r.failure?.report).toBeUndefined();
  });

  it('fail a turn whose task input differs, showing both sides', async () => {
    const r = await run(`${HEAD}tasks:
  find_slots: { result: [] }
turns:
${BOOK}  - say: "4"
    bot:
      - send: Looking…
      - task: { name: find_slots, input: { party: 5 } }
      - send: "Free: "
`);
    expect(r.passed).toBe(false);
    expect(r.failure!.report).toContain('task find_slots {"party":4}');
    expect(r.failure!.report).toContain('task input differs');
  });

  it('route a stubbed error by its code, and try a timeout again on the virtual clock', async () => {
    const closed = await run(`${HEAD}tasks:
  find_slots: { error: closed }
turns:
${BOOK}  - say: "2"
    bot: [{ send: Looking… }, { task: find_slots }, { send: Closed that day. }, { send: Sorry. }]
`);
    expect(closed.failure?.report).toBeUndefined();
    const retried = await run(`${HEAD}tasks:
  find_slots: [{ timeout: true }, { result: ["20:00"] }]
turns:
${BOOK}  - say: "2"
    bot: [{ send: Looking… }, { task: find_slots }, { send: "Free: 20:00" }]
`);
    expect(retried.failure?.report).toBeUndefined();
  });

  it('name a task the transcript did not stub', async () => {
    const r = await run(`${HEAD}turns:
${BOOK}  - say: "2"
    bot: [{ send: Looking… }, { task: find_slots }, { send: Our system is down. }, { send: Sorry. }]
`);
    expect(r.passed).toBe(false);
    expect(r.failure!.report).toContain(
      'the transcript does not stub task "find_slots": add tasks: { find_slots:',
    );
  });

  it('report a malformed stub at its place', () => {
    const parsed = parseTranscripts(
      `${HEAD}tasks:\n  find_slots: { result: [], error: x }\nturns:\n${BOOK}`,
      'table.test.yaml',
    );
    expect(parsed.problems.map(formatProblem)).toEqual([
      expect.stringMatching(
        /^table\.test\.yaml:4:\d+: error: a stub says exactly one of result, error, throw or timeout/,
      ),
    ]);
  });

  it('are recorded with input and result, and replay answers them from the recording, diffing inputs', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'botflow-task-replay-')), 'r.jsonl');
    const r = await run(
      `${HEAD}tasks:
  find_slots: [{ timeout: true }, { result: ["18:00"] }]
turns:
${BOOK}  - say: "4"
    bot: [{ send: Looking… }, { task: find_slots }, { send: "Free: 18:00" }]
`,
      file,
    );
    expect(r.failure?.report).toBeUndefined();
    const recording = readRecording(file);
    expect(recording.tasks?.map((t) => [t.task, t.attempt, t.input, t.error?.code ?? t.result])).toEqual([
      ['find_slots', 1, { party: 4 }, 'timeout'],
      ['find_slots', 2, { party: 4 }, ['18:00']],
    ]);
    const same = await replay(recording, { flows: compiled() });
    expect(same.differences.map((d) => d.text)).toEqual([]);
    const changed = await replay(recording, {
      flows: compiled(
        FLOW.replace('input: { party: "{{party}}" }', 'input: { party: "{{party}}", kids: 0 }'),
      ),
    });
    expect(changed.differences.map((d) => d.text).join('\n')).toContain(
      '+ task           find_slots {"party":4,"kids":0}',
    );
  });
});
