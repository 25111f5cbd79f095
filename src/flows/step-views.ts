/**
 * A compiled flow's steps as written, for the views that start from its machine (the storyboard, the
 * playground's graph, coverage's skeleton transcripts): the step a state path names, and how each step of
 * the flow's own file is drawn. Read from the flow files the definition carries
 * (`FlowDefinition.source`); hand-written flows have none, so they get no step and no drawing.
 */
import type { FlowDefinition } from '../engine/step/contract.ts';
import { parseFlowSourceRecord } from './flow-source.ts';
import { definitionKinds } from './kinds/custom-attach.ts';
import { kindOf } from './kinds/registry.ts';
import { drawingOf, nestedFlow, type StepView } from './kinds/views.ts';
import type { FlowFile, Step } from './schema.ts';
import { parseFlowSource } from './yaml-source.ts';

/** A step of the graph (`ask`, `call>inner`, `__call_help>explain`) with the flow file it is written in. */
export interface StepAt {
  flow: FlowFile;
  step: Step;
}

/** The flow files a definition carries, by flow id (none when it has no source or it does not parse). */
function flowFiles(definition: FlowDefinition): Map<string, FlowFile> {
  const files = new Map<string, FlowFile>();
  try {
    for (const f of definition.source ? parseFlowSourceRecord(definition.source).files : []) {
      const parsed = parseFlowSource(f.source, f.file, definitionKinds(definition)).flow;
      if (parsed) files.set(parsed.flow, parsed);
    }
  } catch {
    files.clear();
  }
  return files;
}

/** The kind of a step of a parsed file, or undefined for a type no kind has. */
const kindAt = (step: Step) => {
  try {
    return kindOf(step);
  } catch {
    return undefined;
  }
};

/**
 * Finds the step a state path names in the flow's files: `ask`, a step of a flow run inside a step
 * (`book>pick_day`, through the kind's `nested`), or of a flow a route calls (`__call_help>explain`).
 */
export function stepFinder(definition: FlowDefinition): (path: string) => StepAt | undefined {
  const files = flowFiles(definition);
  return (path) => {
    const parts = path.split('>');
    let flow = files.get(definition.id);
    for (const part of parts.slice(0, -1)) {
      const called = part.startsWith('__call_') ? part.slice(7) : flow?.steps[part];
      const kind = typeof called === 'object' ? kindAt(called) : undefined;
      const id = typeof called === 'string' ? called : kind && called ? nestedFlow(kind, called) : undefined;
      flow = id === undefined ? undefined : files.get(id);
    }
    const step = flow?.steps[parts[parts.length - 1]!];
    return flow && step ? { flow, step } : undefined;
  };
}

/** How each step of the flow's own file is drawn (its kind's drawing), by step id. */
export function stepViews(definition: FlowDefinition): Record<string, StepView> {
  const own = flowFiles(definition).get(definition.id);
  const views: Record<string, StepView> = {};
  for (const [id, step] of Object.entries(own?.steps ?? {})) {
    const kind = kindAt(step);
    if (kind) views[id] = drawingOf(kind);
  }
  return views;
}
