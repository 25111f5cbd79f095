/** Loading the flows under test: any problem in them stops the run with the checker's messages. */
import type { FlowDefinition } from '../engine/step/contract.ts';
import { loadFlows } from '../flows/load.ts';
import { formatProblem, hasErrors } from '../flows/problems.ts';

/** Loads the flows of `dir` (with its registry.ts and locales); throws when `botflow check` would fail. */
export async function loadFlowsOrThrow(dir: string): Promise<FlowDefinition[]> {
  const { flows, problems } = await loadFlows(dir);
  if (hasErrors(problems)) {
    throw new Error(
      `the flows in ${dir} have problems (run botflow check ${dir}):\n${problems.map(formatProblem).join('\n')}`,
    );
  }
  return flows;
}
