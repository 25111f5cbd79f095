/** The `branch` step: conditions tried in order, each with its step; `else` when none holds. */
import { conditionText } from '../../conditions.ts';
import { provenBy, setNames } from '../../data-flow.ts';
import type { Builder } from '../../graph-builder.ts';
import { act, guard, type StepState } from '../../state-parts.ts';
import type { Walker } from '../../walker.ts';
import { type StepKind, stepKind } from '../contract.ts';
import { BranchStep } from './schema.ts';

/** A branch step: its cases and `else`. */
function walk(step: BranchStep, { refs, conditions }: Walker, id: string) {
  const p = ['steps', id] as const;
  step.cases.forEach((c, i) => {
    refs.push({ path: [...p, 'cases', i, 'goto'], from: id, to: c.goto, label: 'when' });
    conditions.push({ path: [...p, 'cases', i, 'when'], condition: c.when });
  });
  refs.push({ path: [...p, 'else'], from: id, to: step.else, label: 'else' });
}

/** A branch: its cases (with what their conditions prove set) and `else`. */
function graph(step: BranchStep, { assignSet, edge }: Builder, id: string) {
  step.cases.forEach((c) => {
    assignSet(c);
    edge(id, c.goto, 'when', [...setNames(c), ...provenBy(c.when)]);
  });
  edge(id, step.else, 'else', []);
}

/** A branch: nothing to draw, but entering is recorded (coverage counts branch steps and their routes). */
function state(step: BranchStep, { s, enter }: StepState) {
  return {
    entry: enter,
    always: [
      ...step.cases.map((c, i) => ({
        guard: guard('cond', { ...s, index: i, when: conditionText(c.when) }),
        target: c.goto,
        ...(c.set ? { actions: [act('nextSet', { ...s, index: i })] } : {}),
      })),
      { target: step.else },
    ],
  };
}

export const branch: StepKind<BranchStep> = stepKind({
  type: 'branch',
  summary: 'Goes to the first case whose condition holds, else to else; nothing is said',
  schema: BranchStep,
  understands: false,
  walk,
  graph,
  state,
  drawing: { shape: 'hexagon', label: 'branch' },
  // Its cases are its conditional ways out (`cond` and `nextSet` read them by index).
  nextAt: (step, i) => step.cases[i],
});
