/**
 * `transcriptTests(paths, { flows })`: registers one vitest test per transcript, so `npm test` runs them.
 *
 *   import { transcriptTests } from 'botflow-engine/testing/vitest';
 *   transcriptTests('flows/tests', { flows: 'flows' });
 */
import { describe, expect, it } from 'vitest';
import type { TaskDefinition } from '../dispatch/tasks/task.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { formatProblem } from '../flows/problems.ts';
import { loadProjectOrThrow } from './flows.ts';
import { expandPaths, loadTranscripts } from './load.ts';
import { runTranscript } from './run.ts';

/** Options of `transcriptTests`. */
export interface TranscriptTestOptions {
  /** A folder of flow files (loaded with its registry and locales) or compiled flows. */
  flows: string | FlowDefinition[];
  /** The registry's tasks for transcripts that run them (`tasks: real`); default: the folder's registry. */
  tasks?: Readonly<Record<string, TaskDefinition>>;
  /** Per-test timeout in ms (default 30 s: each transcript starts its own sandbox). */
  timeout?: number;
}

/** Registers a vitest `describe` with one test per transcript found in `paths` (files, folders, `dir/*.test.yaml`). */
export function transcriptTests(paths: string | string[], options: TranscriptTestOptions): void {
  const { transcripts, problems } = loadTranscripts(expandPaths(Array.isArray(paths) ? paths : [paths]));
  type Project = { flows: FlowDefinition[]; tasks: Readonly<Record<string, TaskDefinition>> };
  let project: Promise<Project> | undefined;
  const getProject = () =>
    (project ??=
      typeof options.flows === 'string'
        ? loadProjectOrThrow(options.flows)
        : Promise.resolve({ flows: options.flows, tasks: {} }));
  describe('transcripts', () => {
    if (problems.length) {
      it('transcript files are valid', () => {
        expect.fail(problems.map(formatProblem).join('\n'));
      });
    }
    for (const t of transcripts) {
      it(`${t.flow} › ${t.name} (${t.file}:${t.line})`, { timeout: options.timeout ?? 30_000 }, async () => {
        const { flows, tasks } = await getProject();
        const result = await runTranscript(t, { flows, tasks: options.tasks ?? tasks });
        if (!result.passed) expect.fail(`\n${result.failure?.report}`);
      });
    }
  });
}
