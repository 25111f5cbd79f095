/** The `call` step: another flow runs (as nested states); when it ends, this flow continues at `next`. */
import type { Builder } from '../../graph-builder.ts';
import { act, type StepState } from '../../state-parts.ts';
import { typeOfValue, UNKNOWN } from '../../var-types.ts';
import type { Walker } from '../../walker.ts';
import { type StepCheck, type StepKind, stepKind } from '../contract.ts';
import { callParts, enterCall } from './run.ts';
import { CallStep } from './schema.ts';

function walk(step: CallStep, w: Walker, id: string) {
  w.calls.push({ path: ['steps', id, 'flow'], flow: step.flow, from: id });
  // Its `next` is a step reference like any other: checked, and what makes the next step reachable.
  w.refs.push({ path: ['steps', id, 'next'], from: id, to: step.next, label: 'next' });
}

/** A call: its `with:` copies, what the called flow sets, its result, then `next`. */
function graph(step: CallStep, g: Builder, id: string) {
  const { waiting, later, assign, types, calls, called, endOf, edge } = g;
  waiting.push(id);
  const withNames = Object.keys(step.with ?? {});
  for (const [k, v] of Object.entries(step.with ?? {})) {
    const copied = typeof v === 'string' ? /^\{\{\s*(\w+)\s*\}\}$/.exec(v)?.[1] : undefined;
    if (copied) later.push(() => assign(k, types.get(copied) ?? UNKNOWN));
    else assign(k, typeOfValue(v));
  }
  calls.push({ flow: step.flow, steps: [id], extra: new Set(withNames) });
  const end = called(step.flow);
  if (step.save_as) assign(step.save_as, endOf(step.flow).returns ?? UNKNOWN);
  edge(id, step.next, '', [...withNames, ...end, ...(step.save_as ? [step.save_as] : [])]);
}

/** A call: the called flow runs as nested states; its end continues at `next`. */
function state(step: CallStep, { k, key, s, prefix, chain, enter, waiting }: StepState) {
  const { leave, on } = waiting();
  const callee = k.flows.get(step.flow)!;
  return {
    entry: enter,
    exit: leave,
    on,
    initial: callee.start,
    states: k.buildStates(callee, `${prefix}${step.flow}>`, [...chain, step.flow], k.paths.get(key)),
    onDone: { target: step.next, actions: [act('called', s)] },
  };
}

/** `save_as` needs a called flow that returns something. */
function check(step: CallStep, { id, report, returns }: StepCheck) {
  if (step.save_as && returns(step.flow) === false)
    report(
      ['steps', id, 'save_as'],
      'error',
      `flow "${step.flow}" returns nothing for save_as`,
      `give an end step of ${step.flow} a return: <variable>`,
    );
}

export const call: StepKind<CallStep> = stepKind({
  type: 'call',
  summary: 'Runs another flow; when it ends, this flow continues at next (with what it gave back)',
  schema: CallStep,
  understands: false,
  walk,
  graph,
  state,
  check,
  drawing: { shape: 'subroutine', label: 'call' },
  nested: (step) => step.flow,
  entering: enterCall,
  inlined: (step) => [step.flow],
  resumes: true,
  parts: callParts,
});
