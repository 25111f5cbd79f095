/**
 * Transcripts with tasks, over the sandbox: tasks are stubbed by the transcript (never the real systems),
 * asserted with their input, retried on the virtual clock, and a task nobody stubbed fails with a hint.
 */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
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
function compiled(): FlowDefinition[] {
  if (flows) return flows;
  const registry = defineRegistry({ tasks: { find_slots: () => [] } });
  const r = compileSources([{ file: 'table.flow.yaml', source: FLOW }], registry, new Map());
  expect(r.problems.map(formatProblem)).toEqual([]);
  flows = r.flows;
  return flows;
}

async function run(yaml: string) {
  const parsed = parseTranscripts(yaml, 'table.test.yaml');
  expect(parsed.problems.map(formatProblem)).toEqual([]);
  return runTranscript(parsed.transcripts[0]!, { flows: compiled() });
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
        /^table\.test\.yaml:4:\d+: error: a stub says exactly one of result, error or timeout/,
      ),
    ]);
  });
});
