/**
 * `transcriptTests(paths, { flows })`: registers one vitest test per transcript, so `npm test` runs them.
 *
 *   import { transcriptTests } from 'botflow-engine/testing/vitest';
 *   transcriptTests('flows/tests', { flows: 'flows' });
 */
import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { formatProblem } from '../flows/problems.ts';
import { loadFlowsOrThrow } from './flows.ts';
import { expandPaths, loadTranscripts } from './load.ts';
import { runTranscript } from './run.ts';

/** Options of `transcriptTests`. */
export interface TranscriptTestOptions {
  /** A folder of flow files (loaded with its registry and locales) or compiled flows. */
  flows: string | FlowDefinition[];
  /** Per-test timeout in ms (default 30 s: each transcript starts its own sandbox). */
  timeout?: number;
}

/** Registers a vitest `describe` with one test per transcript found in `paths` (files, folders, `dir/*.test.yaml`). */
export function transcriptTests(paths: string | string[], options: TranscriptTestOptions): void {
  const { transcripts, problems } = loadTranscripts(expandPaths(Array.isArray(paths) ? paths : [paths]));
  let flows: Promise<FlowDefinition[]> | undefined;
  const getFlows = () =>
    (flows ??=
      typeof options.flows === 'string' ? loadFlowsOrThrow(options.flows) : Promise.resolve(options.flows));
  describe('transcripts', () => {
    if (problems.length) {
      it('transcript files are valid', () => {
        expect.fail(problems.map(formatProblem).join('\n'));
      });
    }
    for (const t of transcripts) {
      it(`${t.flow} › ${t.name} (${t.file}:${t.line})`, { timeout: options.timeout ?? 30_000 }, async () => {
        const result = await runTranscript(t, { flows: await getFlows() });
        if (!result.passed) expect.fail(`\n${result.failure?.report}`);
      });
    }
  });
}
