/** The `end` step: the last words; the conversation ends (a called flow returns to its caller). */
import type { Enqueue, FlowContext } from '../../machine-context.ts';
import type { StepState } from '../../state-parts.ts';
import { readVar } from '../../vars.ts';
import { type StepKind, type StepReads, stepKind } from '../contract.ts';
import { EndStep } from './schema.ts';

/** Entering an end step: its `return:` value is kept for the caller (one variable, or several as an object). */
function entering(s: EndStep, c: FlowContext, enqueue: Enqueue): FlowContext {
  if (s.return === undefined) return c;
  const names = s.return;
  const ret = Array.isArray(names)
    ? Object.fromEntries(names.map((n) => [n, readVar(c.vars, n) ?? null]))
    : (readVar(c.vars, names) ?? null);
  enqueue.assign({ ret });
  return c;
}

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

export const end: StepKind<EndStep> = stepKind({
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
  entering,
});
