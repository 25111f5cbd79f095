/**
 * A step kind: everything botflow knows about one `type:` of step, in one place. The flows layer never asks
 * a step what it is; it asks the step's kind (kinds/registry.ts) to walk it (texts, ways out, calls,
 * conditions: the linter, the graph, coverage, the storyboard, mermaid), to add its edges and assignments
 * to the data-flow graph, and to build its XState state. Each built-in kind is a folder of its own:
 * `schema.ts` (its fields, described for docs, the JSON Schema and an editor's hover) and `index.ts` (the
 * rest). Features that cut across kinds (intents, typed answers, reminders, idle, buttons, events,
 * `come_back`, retries, `on_error`) are written once against this contract, not per kind.
 */
import type { z } from 'zod';
import type { Builder } from '../graph-builder.ts';
import type { Path } from '../problems.ts';
import type { FlowFile } from '../schema.ts';
import type { StateConfig, StepState } from '../state-parts.ts';
import type { Walker } from '../walker.ts';

/** What every step has: the `type:` that selects its kind. */
export interface StepFields {
  readonly type: string;
}

/**
 * The contract of a kind of step. Its hooks are synchronous and pure (they describe; the engine runs), so
 * a kind cannot break the engine's guarantees: one transaction per step, the outbox, stale buttons, pinned
 * versions.
 */
export interface StepKind<S extends StepFields = StepFields> {
  /** The `type:` that selects this kind in a flow file. */
  readonly type: S['type'];
  /** One sentence: what the step does (docs, the JSON Schema's description, an editor's hover). */
  readonly summary: string;
  /** Its fields: a strict zod object whose `type` is the literal above, each field `.describe()`d. */
  readonly schema: z.ZodType<S>;
  /** Whether typed text reaches intents (`understand:`, the flow's own) while a person is at this step. */
  readonly understands: boolean;
  /** The step with the flow's `defaults:` filled in, where the kind reads them. */
  withDefaults?(step: S, flow: FlowFile): S;
  /** Lists the step's own texts, ways out, calls and conditions (after what every step may have). */
  walk(step: S, w: Walker, id: string): void;
  /** Adds the step's own edges and assignments to the data-flow graph (after what every step may have). */
  graph(step: S, g: Builder, id: string): void;
  /** The step's XState state: its entry, its transitions for messages, presses, events and timers. */
  state(step: S, at: StepState): StateConfig;

  // --- k-custom: what a project's own kinds (defineStepKind, kinds/custom*.ts) need of the contract ---
  /**
   * The variables the step reads besides its texts' `{{variables}}` and its conditions, each at the path
   * it is written at (the data-flow checker reports one that is not set before). Default: none.
   */
  reads?(step: S, id: string): readonly { path: Path; name: string }[];
}

/** Declares a kind, checking it against the contract. */
export const stepKind = <S extends StepFields>(kind: StepKind<S>): StepKind<S> => kind;
