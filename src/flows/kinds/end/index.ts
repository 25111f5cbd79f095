/** The `end` step: the last words; the conversation ends (a called flow returns to its caller). */
import type { StepState } from '../../state-parts.ts';
import { type StepReads, stepKind } from '../contract.ts';
import { EndStep } from './schema.ts';

/** Its `return`: the variables it hands back to the calling flow. */
function reads(step: EndStep, r: StepReads) {
  if (step.return === undefined) return;
  const at = ['steps', r.id, 'return'];
  if (Array.isArray(step.return))
    step.return.forEach((name, i) => {
      r.variable([...at, i], name);
    });
  else r.variable(at, step.return);
}

export const end = stepKind({
  type: 'end',
  summary: 'Says its last words and ends the conversation (a called flow returns to its caller)',
  schema: EndStep,
  understands: false,
  walk: () => {},
  graph: () => {},
  state: (_step: EndStep, { enter }: StepState) => ({ type: 'final', entry: enter }),
  reads,
  endsFlow: true,
  returns: (step) => step.return,
  drawing: { shape: 'stadium', label: 'end' },
});
