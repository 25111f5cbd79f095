/** Coverage: the example transcripts reach every step and transition; a partial run lists the rest. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { coverageReport, formatCoverage, skeletons } from '../../src/testing/coverage.ts';
import { CoverageRecorder } from '../../src/testing/coverage-recorder.ts';
import { loadFlowsOrThrow } from '../../src/testing/flows.ts';
import { loadTranscripts } from '../../src/testing/load.ts';
import { runTranscript } from '../../src/testing/run.ts';

let flows: FlowDefinition[];
beforeAll(async () => {
  flows = await loadFlowsOrThrow('flows');
});

describe('coverage', () => {
  it('the example transcripts reach every step and take every transition of the examples', async () => {
    const { transcripts, problems } = loadTranscripts(['flows/tests']);
    expect(problems).toEqual([]);
    const recorder = new CoverageRecorder();
    for (const t of transcripts)
      expect((await runTranscript(t, { flows, coverage: recorder })).passed).toBe(true);
    const report = coverageReport(flows, recorder);
    expect(report.map((c) => c.graph.flowId).sort()).toEqual([
      'booking',
      'help',
      'order_tracking',
      'rate_us',
      'settings',
      'signup',
      'support',
    ]);
    for (const c of report) {
      expect({ flow: c.graph.flowId, steps: c.missedSteps, transitions: c.missedEdges }).toEqual({
        flow: c.graph.flowId,
        steps: [],
        transitions: [],
      });
      expect(c.graph.steps.length).toBeGreaterThan(1);
    }
  }, 120_000);

  it('one happy path leaves the rest listed, with skeletons walking the shortest path to it', async () => {
    const { transcripts } = loadTranscripts(['flows/tests/signup.test.yaml']);
    const recorder = new CoverageRecorder();
    await runTranscript(transcripts.find((t) => t.name === 'happy path')!, { flows, coverage: recorder });
    const signup = coverageReport(flows, recorder).find((c) => c.graph.flowId === 'signup')!;
    expect(signup.missedSteps).toEqual(expect.arrayContaining(['minor', 'cancelled', 'abandoned']));
    expect(signup.missedSteps).not.toContain('confirm');
    const text = formatCoverage([signup]);
    expect(text).toMatch(/signup +steps 5\/10 \(50%\)/);
    expect(text).toContain('transition not taken: ask_age --accept--> minor');
    expect(text).toContain('transition not taken: (any step) --command:cancel--> cancelled');
    const skeleton = skeletons(signup);
    expect(skeleton).toContain('name: "take confirm --button:edit_age--> ask_age"');
    // The shortest path to `minor`: start, a name, then the age.
    const minor = skeleton.split('---').find((d) => d.includes('name: "reach minor"'))!;
    expect(minor.match(/^ {2}- /gm)?.length).toBe(3);
    expect(minor).toContain('say: "TODO an answer ask_name accepts"   # ask_name --accept--> ask_age');
    expect(minor).toContain('# ask_age --accept--> minor');
  }, 60_000);

  it('skeletons stub the tasks on the way and wait as long as the timer they take', async () => {
    const report = coverageReport(flows, new CoverageRecorder());
    const booking = skeletons(report.find((c) => c.graph.flowId === 'booking')!);
    const time = booking.split('---').find((d) => d.includes('name: "reach ask_time"'))!;
    // The task's result is a stub, not a turn of the person's.
    expect(time).toContain('tasks:\n  find_slots: { result: null }');
    expect(time).not.toContain('TODO any text (task');
    expect(booking).toContain('find_slots: { error: closed }');
    // The sign-up's idle timeout is a day; its reminders come after their own delays.
    const signup = skeletons(report.find((c) => c.graph.flowId === 'signup')!);
    expect(signup).toContain('- wait: 1d   # ask_name --idle--> abandoned');
    expect(signup).not.toContain('wait: 1h   # TODO');
    // What the skeletons say is a transcript botflow can read.
    const dir = mkdtempSync(join(tmpdir(), 'botflow-skeletons-'));
    writeFileSync(join(dir, 'booking.test.yaml'), booking);
    writeFileSync(join(dir, 'signup.test.yaml'), signup);
    expect(loadTranscripts([dir]).problems).toEqual([]);
  });
});
