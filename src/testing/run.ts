/**
 * Running transcripts: each in a fresh harness (its own sandbox, database and virtual clock), turn by turn,
 * stopping at the first turn that does not match, with a report that shows where and why.
 */

import type { TaskDefinition } from '../dispatch/tasks/task.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import type { FlowSet } from '../engine/step/flow-set.ts';
import type { Recorder } from '../runtime/recorder.ts';
import type { CoverageRecorder } from './coverage-recorder.ts';
import { Harness, HarnessError } from './harness.ts';
import { installHttpFakes } from './http-fakes.ts';
import { classificationsOf, withClassifications } from './intent-stubs.ts';
import { type ActualAction, describeCall, expectationProblems } from './match.ts';
import { describeAction, sideBySide } from './report.ts';
import { transcriptTasks } from './task-stubs.ts';
import type { Transcript } from './transcript.ts';

/** The outcome of one transcript. */
export interface TranscriptResult {
  transcript: Transcript;
  passed: boolean;
  /** The failing turn (1-based) and the report to show, when it failed. */
  failure?: { turn: number; report: string };
}

/** What runs need. */
export interface RunOptions {
  flows: FlowDefinition[] | FlowSet;
  coverage?: CoverageRecorder;
  /** Records the dialog as `botflow run --record` would (see Harness). */
  recorder?: (now: () => number) => Recorder;
  /** The registry's own tasks, for transcripts that run them (`tasks: real`). */
  tasks?: Readonly<Record<string, TaskDefinition>>;
}

/** Runs one transcript against the flows. */
export async function runTranscript(t: Transcript, options: RunOptions): Promise<TranscriptResult> {
  const harness = await Harness.start({
    flows: options.flows,
    ...(t.clock !== undefined ? { startTime: t.clock } : {}),
    ...(options.coverage ? { coverage: options.coverage } : {}),
    ...(options.recorder ? { recorder: options.recorder } : {}),
    tasks: withClassifications(transcriptTasks(t, options.tasks), classificationsOf(t)),
  });
  // Real tasks meet the outside world through the transcript's HTTP fakes only (never the network).
  const http = t.realTasks || t.http ? installHttpFakes(t.http ?? []) : undefined;
  const unfaked = () =>
    http?.unmatched.length
      ? `\n    http: no fake for ${[...new Set(http.unmatched)].join(', ')}: add it under http: (method, url, reply)`
      : '';
  const title = `${t.flow} › ${t.name}`;
  let turnNo = 0;
  try {
    const person = await harness.person(t.person.name, t.person.locale);
    if (t.startAt) await harness.startAt(person, t.flow, t.startAt);
    else if (t.turns[0]?.action.kind !== 'start') await harness.openDialog(person);
    for (const turn of t.turns) {
      turnNo++;
      const head = `${t.file}:${turn.line}: ${title}, turn ${turnNo}: ${describeAction(turn.action)}`;
      let outcome: Awaited<ReturnType<Harness['act']>>;
      try {
        outcome = await harness.act(person, turn.action);
      } catch (error) {
        if (!(error instanceof HarnessError) && !(error as Error).name?.startsWith('SandboxControl'))
          throw error;
        return {
          transcript: t,
          passed: false,
          failure: { turn: turnNo, report: `${head}\n    ${(error as Error).message}` },
        };
      }
      const actual: ActualAction[] = outcome.calls.map(describeCall);
      const expected = turn.bot;
      const list = expected === 'nothing' ? [] : expected;
      const problems = Array.from({ length: Math.max(list.length, actual.length) }, (_, i) =>
        list[i]
          ? expectationProblems(list[i]!, actual[i])
          : ['unexpected: the transcript does not list this'],
      );
      const failed = problems.some((p) => p.length > 0) || outcome.errors.length > 0;
      if (failed) {
        const steps = outcome.steps.length ? `\n    steps: ${[...new Set(outcome.steps)].join(' → ')}` : '';
        const errors = outcome.errors.map((e) => `\n    engine: ${e}`).join('');
        const report = `${head}\n${sideBySide(expected, actual, problems)}${steps}${errors}${unfaked()}`;
        return { transcript: t, passed: false, failure: { turn: turnNo, report } };
      }
    }
    return { transcript: t, passed: true };
  } catch (error) {
    const report = `${t.file}:${t.line}: ${title}, turn ${turnNo}: ${(error as Error).message}${unfaked()}`;
    return { transcript: t, passed: false, failure: { turn: turnNo, report } };
  } finally {
    await harness.close();
    await http?.restore();
  }
}
