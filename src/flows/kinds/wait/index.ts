/**
 * The `wait` step: it says its text, then waits for external events (`on_event`), buttons and commands;
 * typed text does not move it on (unless an intent routes it): its text is said again.
 */
import type { Builder } from '../../graph-builder.ts';
import { act, type StepState } from '../../state-parts.ts';
import { type Walker, walkKeyboard } from '../../walker.ts';
import { type StepCheck, type StepKind, stepKind } from '../contract.ts';
import { WaitStep } from './schema.ts';

function walk(step: WaitStep, w: Walker, id: string) {
  walkKeyboard(w, id, step.keyboard);
}

function graph(_step: WaitStep, g: Builder, id: string) {
  g.waiting.push(id);
}

/** A wait: typed text does not move it on (unless an intent routes it): its text is said again. */
function state(_step: WaitStep, { s, enter, waiting }: StepState) {
  const { leave, on, add, intents } = waiting();
  for (const t of intents.message) add('message', t);
  add('message', { actions: [act('unrecognisedText', s), act('rerender', { ...s, fresh: true })] });
  return { entry: enter, exit: leave, on };
}

/** A wait someone can leave: an event or a button that goes somewhere, an idle timeout, or commands. */
function check(step: WaitStep, { x, id, report }: StepCheck) {
  const routes = [...Object.values(step.on_event), ...(step.keyboard ?? []).flat()];
  if (!step.idle && !routes.some((r) => r.goto || r.call) && !x.flow.commands)
    report(
      'dead-end',
      ['steps', id],
      'warning',
      `wait step "${id}" has no way out: no event or button goes anywhere, and no idle timeout`,
      'give an on_event route a goto, or add idle: { after: 7d, goto: … }',
    );
}

export const wait: StepKind<WaitStep> = stepKind({
  type: 'wait',
  summary: 'Says its text, then waits for external events, buttons and commands; idle is its timeout',
  schema: WaitStep,
  understands: true,
  walk,
  graph,
  state,
  check,
  drawing: { shape: 'parallelogram', label: 'wait' },
  resumes: true,
});
