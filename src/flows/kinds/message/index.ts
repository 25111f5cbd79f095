/**
 * The `message` step: it says its text (and buttons) and moves on at once by `next`, or, with a task in its
 * `do:`, waits for the task's result ("typing…") and goes where the outcome leads.
 */
import { conditionText } from '../../conditions.ts';
import { type Builder, taskEdges } from '../../graph-builder.ts';
import { act, guard, type StepState } from '../../state-parts.ts';
import { taskOf, taskTransitions } from '../../task-steps.ts';
import { type Walker, walkKeyboard, walkNext } from '../../walker.ts';
import { type StepCheck, type StepKind, stepKind } from '../contract.ts';
import type { TaskCall } from '../fields.ts';
import { MessageStep } from './schema.ts';

function walk(step: MessageStep, w: Walker, id: string) {
  walkKeyboard(w, id, step.keyboard);
  walkNext(w, id, step.next);
}

/** A message: its task's outcomes (the step waits for them), else its `next`. */
function graph(step: MessageStep, g: Builder, id: string) {
  const t = (step.do ?? []).find((d): d is TaskCall => 'task' in d);
  if (t) {
    g.waiting.push(id);
    taskEdges(g, id, step, t);
  } else g.next(id, step, []);
}

/** A message: moves on at once by its `next`, or waits for its task's result (task-steps.ts). */
function state(step: MessageStep, { key, s, enter, waiting }: StepState) {
  const { leave, on, add } = waiting();
  const next = typeof step.next === 'string' ? [{ goto: step.next }] : step.next;
  const task = taskOf(step);
  if (task) {
    for (const [event, ts] of Object.entries(taskTransitions(key, task, next, act)))
      for (const t of ts) add(event, t);
    return { entry: [...enter, act('taskStart', s)], exit: leave, on };
  }
  return {
    entry: enter,
    exit: leave,
    on,
    always:
      typeof step.next === 'string'
        ? [{ target: step.next }]
        : next.map((n, i) => ({
            guard: guard('cond', { ...s, index: i, when: n.when ? conditionText(n.when) : undefined }),
            target: n.goto,
            ...('set' in n && n.set ? { actions: [act('nextSet', { ...s, index: i })] } : {}),
          })),
  };
}

/** A message moves on at once: a callback button of its own would always be stale. */
function check(step: MessageStep, { id, report }: StepCheck) {
  if ((step.keyboard ?? []).flat().some((b) => b.id))
    report(
      'stale-buttons',
      ['steps', id, 'keyboard'],
      'error',
      'a message step moves on at once, so its callback buttons would always be stale',
      'make it a menu step',
    );
}

export const message: StepKind<MessageStep> = stepKind({
  type: 'message',
  summary: 'Says its text (and buttons), then moves on by next, or waits for the result of its task',
  schema: MessageStep,
  understands: false,
  walk,
  graph,
  state,
  check,
  runsTasks: true,
  drawing: { shape: 'stadium', label: 'message' },
});
