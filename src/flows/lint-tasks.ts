/**
 * Checks of the tasks a flow starts: each names a registered task, runs from a step that waits for it
 * (a message step: its kind's `runsTasks`; one per step) and has a failure path. Its input and the reads of its result are checked with every other
 * variable (lint-vars.ts).
 */
import type { walkFlow } from './flow-walk.ts';
import { kindOf } from './kinds/registry.ts';
import type { LintInput, Report } from './lint-input.ts';
import { closest } from './problems.ts';

type Walk = ReturnType<typeof walkFlow>;

/** Runs the task checks on one flow. */
export function lintTasks(x: LintInput, w: Walk, report: Report): void {
  const { flow } = x;
  const known = Object.keys(x.registry.tasks ?? {});
  const perStep = new Map<string, number>();
  for (const { path, from, task } of w.tasks) {
    const step = flow.steps[from]!;
    perStep.set(from, (perStep.get(from) ?? 0) + 1);
    if (!Object.hasOwn(x.registry.tasks ?? {}, task.task)) {
      const guess = closest(task.task, known);
      report(
        'unknown-task',
        [...path, 'task'],
        'error',
        `unknown task "${task.task}"`,
        guess
          ? `did you mean "${guess}"?`
          : `register it with defineRegistry({ tasks: { ${task.task}: async (input, ctx) => … } })`,
        { within: task.task, ...(guess ? { change: guess } : {}) },
      );
    }
    const compensation = task.on_cancel?.task;
    if (compensation !== undefined && !Object.hasOwn(x.registry.tasks ?? {}, compensation)) {
      const guess = closest(compensation, known);
      report(
        'unknown-task',
        [...path, 'on_cancel', 'task'],
        'error',
        `unknown task "${compensation}" in on_cancel`,
        guess
          ? `did you mean "${guess}"?`
          : `register it with defineRegistry({ tasks: { ${compensation}: async (input, ctx) => … } })`,
        { within: compensation, ...(guess ? { change: guess } : {}) },
      );
    }
    if (!kindOf(step).runsTasks) {
      report(
        'task-outside-message',
        [...path, 'task'],
        'error',
        `a task runs from a message step, and "${from}" is ${/^[aeiou]/.test(step.type) ? 'an' : 'a'} ${step.type} step`,
        'put the task in a message step of its own (it waits for the result, then goes to next or on_done)',
      );
    }
    if (task.on_error === undefined) {
      report(
        'no-on-error',
        [...path, 'task'],
        'error',
        `task "${task.task}" has no on_error: when it fails, the person is left on "${from}"`,
        'add on_error: { say: "Sorry, …", goto: <step> } (per code: a list of { code, goto })',
      );
    }
  }
  for (const [id, n] of perStep)
    if (n > 1)
      report(
        'several-tasks',
        ['steps', id, 'do'],
        'error',
        `step "${id}" starts ${n} tasks; a step waits for one`,
        'chain them: one task step each',
      );
}
