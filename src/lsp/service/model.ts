/** What the service's index holds: the names written in the project's files, each with where it is. */
import type { FlowFile } from '../../flows/schema.ts';
import type { VarType } from '../../flows/var-types.ts';
import type { Lines } from './text.ts';

/** Keys whose value is a step id in every flow (a flow's walk adds its kinds' own: `else`, exits…). */
export const STEP_KEYS = new Set([
  'goto',
  'next',
  'start',
  'else',
  'on_done',
  'on_timeout',
  'on_error',
  'otherwise',
  'return_to',
]);

/** What a name written in a file is. */
export type OccurrenceKind =
  | 'step' // a step id: its definition (`def`) or a reference to it (a goto, a next, a transcript's start_at)
  | 'flow' // a flow id: its `flow:` (def) or a `call:`
  | 'message' // a message id of the .ftl catalogs (a flow with i18n), or its definition in a catalog
  | 'variable' // a variable: set (`def`: save, save_as, set:, computed:) or read
  | 'task'
  | 'effect'
  | 'guard'
  | 'validator'
  | 'kind' // a step's `type:`
  | 'button' // a transcript's pressed label
  | 'field'; // a key of a flow file (its documentation)

export interface Occurrence {
  kind: OccurrenceKind;
  name: string;
  start: number;
  end: number;
  /** For a step: the flow it belongs to. For a field: its step's kind (or "flow" at the top). */
  scope?: string;
  /** A definition rather than a use. */
  def?: boolean;
  /** The step it is written in. */
  step?: string;
  /** For a field: the keys of the mappings it is in, under its step (or the flow). */
  keys?: string[];
}

/** A step of a flow file. */
export interface StepInfo {
  id: string;
  type: string;
  /** Where its id is written (the key under `steps:`). */
  start: number;
  end: number;
  /** Where its whole entry ends. */
  blockEnd: number;
  /** Its `say:`, as written. */
  say?: string;
}

/** One file's index: its lines and every name in it, sorted by start. */
export interface FileIndex {
  file: string;
  lines: Lines;
  occurrences: Occurrence[];
}

/** A flow file's index (flow-index.ts). */
export interface FlowIndex extends FileIndex {
  flowId?: string;
  i18n: boolean;
  steps: Map<string, StepInfo>;
  /** Every variable the flow sets, with its type (the data-flow graph's), and botflow's own. */
  types: Map<string, VarType>;
  events: Set<string>;
  intents: Set<string>;
  /** The keys whose values are step ids in this flow (`goto`, `next`, `else`, a kind's exits…). */
  stepKeys: Set<string>;
  /** The keys whose values are texts (message ids in a flow with i18n). */
  textKeys: Set<string>;
  /** The labels of the flow's buttons and options (message ids in a flow with i18n), by step. */
  labels: { text: string; step?: string }[];
  flow?: FlowFile;
}

/** Finds the occurrence at an offset (a name is found with the cursor just after it too). */
export function occurrenceAt(index: FileIndex, offset: number): Occurrence | undefined {
  const here = index.occurrences.filter((o) => o.start <= offset && offset <= o.end);
  return here.find((o) => o.kind !== 'field') ?? here[0];
}
