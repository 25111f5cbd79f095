/**
 * Checks of the tasks a flow starts: each names a registered task, runs from a message step (one per
 * step), has a failure path, gets its input from variables some step saves, and its result is not read
 * by a step the conversation can reach before the task has run.
 */
import type { walkFlow } from './flow-walk.ts';
import type { LintInput, Report } from './lint-input.ts';
import { closest } from './problems.ts';
import type { FlowFile } from './schema.ts';

type Walk = ReturnType<typeof walkFlow>;

/** Variables botflow itself sets. */
const BUILTIN_VARS = ['start_payload', 'button_value', 'task_error', 'locale', 'item'];

/** Every variable a step of the flow can save: answers, set:, save_as of calls and tasks. */
function savedVariables(flow: FlowFile, w: Walk): Set<string> {
  const saved = new Set<string>(BUILTIN_VARS);
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const x of node) visit(x);
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'save' || key === 'save_as') && typeof value === 'string') saved.add(value);
      else if ((key === 'set' || key === 'with') && value && typeof value === 'object')
        for (const name of Object.keys(value)) saved.add(name);
      else visit(value);
    }
  };
  visit(flow.steps);
  visit(flow.commands);
  for (const t of w.tasks) if (t.task.save_as) saved.add(t.task.save_as);
  return saved;
}

/** The variables a text names: `{{party}}`, `{{slot.time}}` → party, slot. */
function namesIn(text: string): string[] {
  return [...text.matchAll(/\{\{\s*([A-Za-z_]\w*)/g)].map((m) => m[1]!);
}

/** Runs the task checks on one flow. */
export function lintTasks(x: LintInput, w: Walk, report: Report): void {
  const { flow } = x;
  const known = Object.keys(x.registry.tasks ?? {});
  const perStep = new Map<string, number>();
  const saved = savedVariables(flow, w);
  for (const { path, from, task } of w.tasks) {
    const step = flow.steps[from]!;
    perStep.set(from, (perStep.get(from) ?? 0) + 1);
    if (!Object.hasOwn(x.registry.tasks ?? {}, task.task)) {
      const guess = closest(task.task, known);
      report(
        [...path, 'task'],
        'error',
        `unknown task "${task.task}"`,
        guess
          ? `did you mean "${guess}"?`
          : `register it with defineRegistry({ tasks: { ${task.task}: async (input, ctx) => … } })`,
      );
    }
    const compensation = task.on_cancel?.task;
    if (compensation !== undefined && !Object.hasOwn(x.registry.tasks ?? {}, compensation)) {
      const guess = closest(compensation, known);
      report(
        [...path, 'on_cancel', 'task'],
        'error',
        `unknown task "${compensation}" in on_cancel`,
        guess
          ? `did you mean "${guess}"?`
          : `register it with defineRegistry({ tasks: { ${compensation}: async (input, ctx) => … } })`,
      );
    }
    if (step.type !== 'message') {
      report(
        [...path, 'task'],
        'error',
        `a task runs from a message step, and "${from}" is ${/^[aeiou]/.test(step.type) ? 'an' : 'a'} ${step.type} step`,
        'put the task in a message step of its own (it waits for the result, then goes to next or on_done)',
      );
    }
    if (task.on_error === undefined) {
      report(
        [...path, 'task'],
        'error',
        `task "${task.task}" has no on_error: when it fails, the person is left on "${from}"`,
        'add on_error: { say: "Sorry, …", goto: <step> } (per code: a list of { code, goto })',
      );
    }
    for (const [name, value] of Object.entries(task.input ?? {})) {
      if (typeof value !== 'string' || value.trim().startsWith('=')) continue;
      for (const v of namesIn(value))
        if (!saved.has(v))
          report(
            [...path, 'input', name],
            'warning',
            `input ${name} names {{${v}}}, which no step saves`,
            `save it first (save: ${v}, set: { ${v}: … }), or fix the name`,
          );
    }
  }
  for (const [id, n] of perStep)
    if (n > 1)
      report(
        ['steps', id, 'do'],
        'error',
        `step "${id}" starts ${n} tasks; a step waits for one`,
        'chain them: one task step each',
      );
  lintResultsUsedEarly(flow, w, report);
}

/**
 * A task's result variable read by a step the conversation can reach from the start without passing the
 * task's step (or that step's own prompt, drawn before the task runs) would show an empty value.
 */
function lintResultsUsedEarly(flow: FlowFile, w: Walk, report: Report): void {
  const edges = new Map<string, string[]>();
  for (const r of w.refs) if (r.from) edges.set(r.from, [...(edges.get(r.from) ?? []), r.to]);
  const otherwise = new Set<string>();
  const visit = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'save' || key === 'set' || key === 'with') && value !== undefined)
        for (const name of typeof value === 'string' ? [value] : Object.keys(value)) otherwise.add(name);
      else visit(value);
    }
  };
  visit(flow.steps);
  for (const { from, task } of w.tasks) {
    const v = task.save_as;
    if (!v || otherwise.has(v)) continue;
    const reached = new Set<string>();
    const queue = [flow.start];
    while (queue.length) {
      const id = queue.pop()!;
      if (reached.has(id) || id === from) continue;
      reached.add(id);
      queue.push(...(edges.get(id) ?? []));
    }
    reached.add(from); // its own prompt is drawn before the task runs
    for (const t of w.texts) {
      const [root, id] = t.path;
      if (root !== 'steps' || typeof id !== 'string' || !reached.has(id)) continue;
      if (id === from && t.path[2] !== 'say') continue; // the task's own routes run after the result
      if (namesIn(t.text).includes(v))
        report(
          t.path,
          'warning',
          `{{${v}}} is the result of task "${task.task}" (step "${from}"), which has not run yet here`,
          `read it only in steps after "${from}"`,
        );
    }
  }
}
