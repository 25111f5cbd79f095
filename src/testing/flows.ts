/** Loading the flows under test: any problem in them stops the run with the checker's messages. */
import type { TaskDefinition } from '../dispatch/tasks/task.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { BotflowError } from '../errors/index.ts';
import { loadFlows } from '../flows/load.ts';
import { formatProblem, hasErrors } from '../flows/problems.ts';

/** Loads the flows of `dir` (with its registry.ts and locales); throws when `botflow check` would fail. */
export async function loadFlowsOrThrow(dir: string): Promise<FlowDefinition[]> {
  return (await loadProjectOrThrow(dir)).flows;
}

/** The flows of `dir` and its registry's tasks (for transcripts that run them: `tasks: real`). */
export async function loadProjectOrThrow(
  dir: string,
): Promise<{ flows: FlowDefinition[]; tasks: Readonly<Record<string, TaskDefinition>> }> {
  const { flows, problems, registry } = await loadFlows(dir);
  if (hasErrors(problems)) {
    throw new BotflowError(
      'BOTFLOW_TEST_SETUP',
      `the flows in ${dir} have problems (run botflow check ${dir}):\n${problems.map(formatProblem).join('\n')}`,
    );
  }
  return { flows, tasks: registry?.tasks ?? {} };
}
