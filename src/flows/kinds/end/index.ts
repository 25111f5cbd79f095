/** The `end` step: the last words; the conversation ends (a called flow returns to its caller). */
import type { StepState } from '../../state-parts.ts';
import { stepKind } from '../contract.ts';
import { EndStep } from './schema.ts';

export const end = stepKind({
  type: 'end',
  summary: 'Says its last words and ends the conversation (a called flow returns to its caller)',
  schema: EndStep,
  understands: false,
  walk: () => {},
  graph: () => {},
  state: (_step: EndStep, { enter }: StepState) => ({ type: 'final', entry: enter }),
  drawing: { shape: 'stadium', label: 'end' },
});
