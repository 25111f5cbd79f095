/**
 * Skeleton transcripts ask the step's kind for the turn that takes a way out of it (issue 37): the sign-up's
 * age question writes the answers it reads (an integer), and the skeleton stays a transcript botflow reads.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coverageReport, skeletons } from '../../src/testing/coverage.ts';
import { CoverageRecorder } from '../../src/testing/coverage-recorder.ts';
import { loadFlowsOrThrow } from '../../src/testing/flows.ts';
import { loadTranscripts } from '../../src/testing/load.ts';

describe("skeletons from a step's kind", () => {
  it("an input's answers name what it reads; a flow without files still gets any answer", async () => {
    const flows = await loadFlowsOrThrow('flows');
    const signup = coverageReport(flows, new CoverageRecorder()).find((c) => c.graph.flowId === 'signup')!;
    const text = skeletons(signup);
    expect(text).toContain('say: "TODO an answer ask_age accepts (integer)"   # ask_age --accept--> minor');
    expect(text).toContain('say: "TODO an answer ask_name accepts"   # ask_name --accept--> ask_age');
    const dir = mkdtempSync(join(tmpdir(), 'botflow-kind-skeletons-'));
    writeFileSync(join(dir, 'signup.test.yaml'), text);
    expect(loadTranscripts([dir]).problems).toEqual([]);
    // Without the flow's files no kind is known: the answer turn every step gets.
    const bare = { ...signup, stepSource: undefined };
    expect(skeletons(bare)).toContain('say: "TODO an answer ask_age accepts"   # ask_age --accept--> minor');
  }, 60_000);
});
