/**
 * The `handoff` step: the conversation waits for an operator (docs/handoff.md); its engine path is
 * steps.ts (its state, its request, the engine's view) and actions.ts (its actions and guards).
 */
import { HANDOFF_EVENTS } from '../../../engine/step/contract.ts';
import { act, type StateConfig, type StepState } from '../../state-parts.ts';
import type { Walker } from '../../walker.ts';
import { type StepCheck, type StepKind, stepKind } from '../contract.ts';
import { handoffParts } from './actions.ts';
import { HandoffStep } from './schema.ts';
import { handoffDefinition, handoffState } from './steps.ts';

const OPERATOR_EVENTS: readonly string[] = Object.values(HANDOFF_EVENTS);

/** A handoff step: its texts, `return_to`, and the ways out when nobody took it or out of hours. */
function walk(step: HandoffStep, { text, refs }: Walker, id: string) {
  const p = ['steps', id] as const;
  for (const k of ['reason', 'summary', 'joined'] as const) text([...p, k], step[k]);
  text([...p, 'timeout', 'say'], step.timeout?.say);
  text([...p, 'out_of_hours', 'say'], step.out_of_hours?.say);
  refs.push({ path: [...p, 'return_to'], from: id, to: step.return_to, label: '/done' });
  if (step.timeout)
    refs.push({ path: [...p, 'timeout', 'goto'], from: id, to: step.timeout.goto, label: 'nobody took it' });
  if (step.out_of_hours)
    refs.push({
      path: [...p, 'out_of_hours', 'goto'],
      from: id,
      to: step.out_of_hours.goto,
      label: 'closed',
    });
}

function state(step: HandoffStep, { key, enter, waiting }: StepState) {
  return handoffState(key, step, enter, waiting().leave, act) as StateConfig;
}

/** A handoff needs the flow's operators' chat. */
function check(_step: HandoffStep, { x, id, report }: StepCheck) {
  if (!x.flow.handoff)
    report(
      'handoff-no-operators',
      ['steps', id],
      'error',
      `step "${id}" hands the conversation to operators, but the flow names no operators' chat`,
      'add at the top of the flow: handoff: { operators_chat: <chat id> } (docs/handoff.md)',
    );
}

export const handoff: StepKind<HandoffStep> = stepKind({
  type: 'handoff',
  summary: 'Hands the conversation to an operator in the operators chat; /done returns to return_to',
  schema: HandoffStep,
  understands: false,
  walk,
  graph: () => {},
  state,
  check,
  drawing: { shape: 'parallelogram', label: 'handoff' },
  drawsItself: true,
  withOperators: true,
  definition: handoffDefinition,
  // It takes what the operators' chat (or a helpdesk, by bot.events.send) sends it.
  events: () => OPERATOR_EVENTS,
  parts: (k) => handoffParts({ entry: k.entry, say: (e, c, text) => k.say(e, c, text), effect: k.effect }),
});
