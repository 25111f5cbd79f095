/**
 * What skeleton transcripts need to know of a flow's steps beyond its graph: the task a step starts (for a
 * `tasks:` stub) and the delays of its reminders and idle timeout (for `wait:` turns). Read from the flow
 * files the definition carries (`FlowDefinition.source`); hand-written flows have none.
 */
import type { FlowDefinition } from '../engine/step/contract.ts';
import type { FlowFile, Step } from '../flows/schema.ts';
import { stepFinder } from '../flows/step-views.ts';
import { taskOf } from '../flows/task-steps.ts';

/** A step of the graph (`ask`, `call>inner`, `__call_help>explain`) with the flow file it is written in. */
export interface StepSource {
  flow: FlowFile;
  step: Step;
}

/** Finds the step a graph path names in the flow's files; undefined when the flow has no files. */
export const stepSources = (definition: FlowDefinition): ((path: string) => StepSource | undefined) =>
  stepFinder(definition);

/** The task a step starts, if it starts one. */
export const taskName = (s: StepSource | undefined): string | undefined =>
  s ? taskOf(s.step)?.task : undefined;

/** The delay after which a step's `remind N` (1-based) or `idle` fires, as the flow file writes it. */
export function timerDelay(s: StepSource | undefined, label: string): string | undefined {
  if (!s) return undefined;
  const step = s.step as { remind?: { after: string }[]; idle?: { after: string } };
  if (label === 'idle') return (step.idle ?? s.flow.defaults?.idle)?.after;
  const n = /^remind (\d+)$/.exec(label);
  return n ? (step.remind ?? s.flow.defaults?.remind)?.[Number(n[1]) - 1]?.after : undefined;
}
