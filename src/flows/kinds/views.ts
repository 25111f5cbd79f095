/**
 * How the views show a step, with the defaults a kind gets when it says nothing (a project's own kind
 * included): the storyboard and the playground's graph draw it (`drawingOf`), views follow a state path into
 * the flow it runs (`nestedFlow`), and skeleton transcripts write the turn that takes a way out of it
 * (`skeletonTurn`). The built-ins' values live in their folders (kinds/<kind>/index.ts).
 */
import type { StepDrawing, StepFields, StepKind } from './contract.ts';

/** The drawing of a kind that declares none: a stadium (as every step was drawn before kinds had one). */
export const DEFAULT_SHAPE = 'stadium';

/** A step's drawing, with its kind's `type:` (a data attribute, a CSS class). */
export interface StepView extends StepDrawing {
  readonly type: string;
}

/** How `kind` draws its steps: its own drawing, else a stadium labelled with its type. */
export function drawingOf(kind: Pick<StepKind, 'type' | 'drawing'>): StepView {
  return {
    type: kind.type,
    shape: kind.drawing?.shape ?? DEFAULT_SHAPE,
    label: kind.drawing?.label ?? kind.type,
  };
}

/** The flow that runs inside `step`'s own state, if its kind nests one. */
export const nestedFlow = <S extends StepFields>(kind: StepKind<S>, step: S): string | undefined =>
  kind.nested?.(step);

/** The kind's own skeleton turn for the way out `way` of `step` (id `at`), if it writes one. */
export const skeletonTurn = <S extends StepFields>(
  kind: StepKind<S>,
  step: S,
  way: string,
  at: string,
): string | undefined => kind.skeleton?.(step, way, at);
