/** Coverage counts branch steps and the routes through them, so a flow with a branch can reach 100%. */
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { coverageReport } from '../../src/testing/coverage.ts';
import { CoverageRecorder } from '../../src/testing/coverage-recorder.ts';
import { parseTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

const flow = `flow: age
start: ask
triggers:
  - bot_started: true
steps:
  ask:
    type: input
    say: "Your age?"
    input: integer
    retries: { max: 2, exhausted: { goto: adult } }
    save: age
    next: check
  check:
    type: branch
    cases:
      - { when: { var: age, lt: 18 }, goto: minor }
    else: adult
  minor:
    type: end
    say: "Too young."
  adult:
    type: end
    say: "Welcome."
`;

const transcripts = `flow: age
name: a minor
turns:
  - start: true
    bot: { send: "Your age?" }
  - say: "12"
    bot: { send: "Too young." }
---
flow: age
name: an adult
turns:
  - start: true
    bot: { send: "Your age?" }
  - say: "40"
    bot: { send: "Welcome." }
---
flow: age
name: no answer
turns:
  - start: true
    bot: { send: "Your age?" }
  - say: "x"
    bot: { send: ~whole number }
  - say: "y"
    bot: [{ send: ~whole number }, { send: "Welcome." }]
`;

describe('coverage of branch steps', () => {
  it('reaches every step and route of a flow with a branch', async () => {
    const { flows, problems } = compileSources(
      [{ file: 'age.flow.yaml', source: flow }],
      EMPTY_REGISTRY,
      new Map(),
    );
    expect(problems).toEqual([]);
    const parsed = parseTranscripts(transcripts, 'age.test.yaml');
    expect(parsed.problems).toEqual([]);
    const coverage = new CoverageRecorder();
    for (const t of parsed.transcripts) {
      const result = await runTranscript(t, { flows, coverage });
      expect(result.failure?.report ?? 'passed').toBe('passed');
    }
    const [report] = coverageReport(flows, coverage);
    expect(report!.missedSteps).toEqual([]);
    expect(report!.missedEdges).toEqual([]);
    expect(report!.reachedSteps).toBe(4);
  }, 30_000);
});
