/**
 * The `input` step: a question whose answer is typed (or pressed, for choices), read as its kind (text,
 * number, date, a choice…), checked by its rules and saved; wrong answers are refused up to `retries`.
 */

import { conditionText } from '../../conditions.ts';
import { itemValue } from '../../data-flow.ts';
import type { Builder } from '../../graph-builder.ts';
import { kindsOf } from '../../inputs.ts';
import { act, guard, routeTransition, type StepState } from '../../state-parts.ts';
import { typeAt, typeOfInput } from '../../var-types.ts';
import { type Walker, walkKeyboard, walkNext } from '../../walker.ts';
import { type StepKind, stepKind } from '../contract.ts';
import type { FlowFile } from '../steps.ts';
import { checkInput } from './check.ts';
import { buttonRows, typedAnswer, typedChoices } from './check-parts.ts';
import { inputChoices, inputKeyboard } from './keyboard.ts';
import { inputParts } from './parts.ts';
import { inputReads, itemListAt } from './reads.ts';
import { InputStep } from './schema.ts';
import { skeleton } from './skeleton.ts';

/** Reminders and the idle timeout of the flow's `defaults:`, where the step declares none. */
function withDefaults(step: InputStep, f: FlowFile): InputStep {
  const d = f.defaults;
  if (!d) return step;
  return {
    ...step,
    ...(step.remind === undefined && d.remind ? { remind: d.remind } : {}),
    ...(step.idle === undefined && d.idle ? { idle: d.idle } : {}),
  };
}

/** An input step: its error texts, options, `options_from` and what happens when retries run out. */
function walk(step: InputStep, w: Walker, id: string) {
  const { text, route } = w;
  const p = ['steps', id] as const;
  walkKeyboard(w, id, step.keyboard);
  walkNext(w, id, step.next, 'valid');
  text([...p, 'error'], step.error);
  (step.options ?? []).forEach((o, i) => {
    text([...p, 'options', i, 'text'], o.text, true);
  });
  if (step.options_from) {
    text([...p, 'options_from', 'text'], step.options_from.text, true);
    route([...p, 'options_from', 'empty'], id, step.options_from.empty, 'empty');
  }
  (step.validate ?? []).forEach((v, i) => {
    text([...p, 'validate', i, 'error'], v.error);
  });
  route([...p, 'retries', 'exhausted'], id, step.retries.exhausted, 'exhausted');
}

/** An input: its answer saved (a choice from a list: known once every list is typed), its ways out. */
function graph(
  step: InputStep,
  { flow, types, waiting, later, assign, next, route, edge }: Builder,
  id: string,
) {
  waiting.push(id);
  const from = step.options_from;
  if (step.save && from)
    later.push(() => assign(step.save!, itemValue(typeAt(types, from.list), from.value)));
  else if (step.save) assign(step.save, typeOfInput(kindsOf(step)));
  next(id, step, step.save ? [step.save] : [], 'valid');
  route(id, step.retries.exhausted, 'exhausted');
  route(id, from?.empty, 'empty');
  if (!step.idle && flow.defaults?.idle) edge(id, flow.defaults.idle.goto, 'idle', []);
}

/** An input's transitions for an answer: intents first, a `come_back` return, its `next`, a refusal. */
function answerTransitions({ k, key, s, prefix, chain, waiting }: StepState, step: InputStep) {
  const { intents } = waiting();
  const next = typeof step.next === 'string' ? [{ goto: step.next }] : step.next;
  const ex = step.retries.exhausted;
  if (ex.call) k.calledFromRoutes.add(ex.call);
  const comeBack = chain.length === 1 && prefix === '' && k.returns.edited.has(key);
  return [
    ...intents.first,
    // After an edit from a summary (`come_back: true`), an accepted answer returns to the summary.
    ...(comeBack
      ? [
          {
            guard: guard('answer', { ...s, back: true }),
            target: `#${k.flow.flow}.__back`,
            actions: [act('accept', s)],
          },
        ]
      : []),
    ...next.map((n, i) => ({
      guard: guard(
        'answer',
        typeof step.next === 'string'
          ? s
          : { ...s, index: i, ...('when' in n && n.when ? { when: conditionText(n.when) } : {}) },
      ),
      target: n.goto,
      actions: [act('accept', s), ...('set' in n && n.set ? [act('nextSet', { ...s, index: i })] : [])],
    })),
    ...intents.message,
    {
      guard: guard('exhausted', s),
      ...(ex.call ? { target: `#${k.flow.flow}.__call_${ex.call}` } : ex.goto ? { target: ex.goto } : {}),
      actions: [act('reject', { ...s, last: true })],
    },
    { guard: guard('answerEvent', s), actions: [act('reject', s)] },
  ];
}

/** An input: typed answers, and pressed options (toggled, or a page of an `options_from` list turned). */
function state(step: InputStep, at: StepState) {
  const { k, key, s, enter } = at;
  const { leave, on, add } = at.waiting();
  const answers = answerTransitions(at, step);
  for (const t of answers) add('message', t);
  // Commands are never answers: the flow's own commands and the refusal of others live at the root.
  if (step.options) {
    add('button', { guard: guard('toggle', s), actions: [act('toggle', s)] });
    for (const t of answers) add('button', t);
  }
  if (step.options_from) {
    // ‹ and › turn the page in place; a choice is an answer like a typed one.
    add('button', { guard: guard('pageTurn', s), actions: [act('turnPage', s)] });
    for (const t of answers) add('button', t);
    const empty = step.options_from.empty;
    if (empty?.call) k.calledFromRoutes.add(empty.call);
    const always = empty
      ? [{ guard: guard('noChoices', s), ...routeTransition(k, key, 'empty', empty) }]
      : undefined;
    return { entry: enter, exit: leave, on, ...(always ? { always } : {}) };
  }
  return { entry: enter, exit: leave, on };
}

export const input: StepKind<InputStep> = stepKind({
  type: 'input',
  summary: 'Asks a question and reads the typed (or pressed) answer as its kind, checks it and saves it',
  schema: InputStep,
  understands: true,
  withDefaults,
  walk,
  graph,
  state,
  check: checkInput,
  reads: inputReads,
  itemListAt,
  routes: (step) => [
    { path: ['retries', 'exhausted'], route: step.retries.exhausted, onSend: false },
    ...(step.options_from?.empty
      ? [{ path: ['options_from', 'empty'], route: step.options_from.empty, onSend: false }]
      : []),
  ],
  asksQuestion: true,
  typedAnswer,
  typedChoices,
  buttonRows,
  drawing: { shape: 'rect', label: 'question' },
  skeleton,
  readsText: true,
  resumes: true,
  // Only a step with options or choices offers something typed text may name.
  offersChoices: (step) => !!step.options || !!step.options_from,
  route: (step, which) =>
    which === 'exhausted' ? step.retries.exhausted : which === 'empty' ? step.options_from?.empty : undefined,
  choices: inputChoices,
  keyboard: inputKeyboard,
  parts: inputParts,
});
