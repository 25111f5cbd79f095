/**
 * The semantic pass over a flow that passed the schema: references, reachability, dead ends, inputs,
 * conditions, registered names, i18n keys in every locale, and the platform's message and keyboard
 * limits (checked with the API client's own limit checks, per locale).
 */
import { conditionShape, guardsOf } from './conditions.ts';
import { walkFlow } from './flow-walk.ts';

type FlowWalk = ReturnType<typeof walkFlow>;

import { lintDesigner } from './lint-designer.ts';
import { lintEvents } from './lint-events.ts';
import { checkExpression, lintComputedValues } from './lint-expressions.ts';
import { checkRegex, type LintInput, type Report, reporter, unknownName } from './lint-input.ts';
import { lintIntents } from './lint-intents.ts';
import { lintStep } from './lint-steps.ts';
import { lintTaskInputs } from './lint-task-input.ts';
import { lintTasks } from './lint-tasks.ts';
import { lintKeyboards, lintTexts } from './lint-texts.ts';
import { lintTypedAnswers } from './lint-typed.ts';
import { lintVars } from './lint-vars.ts';
import type { Path } from './problems.ts';
import { closest, type Problem } from './problems.ts';
import type { Registry } from './registry.ts';
import type { FlowFile } from './schema.ts';

/** Checks one flow; returns its problems (errors and warnings). */
export function lintFlow(x: LintInput): Problem[] {
  const { flow, file, locate } = x;
  const problems: Problem[] = [];
  const report = reporter(file, locate, problems, x.text);
  const w = walkFlow(flow);

  if (x.expectedId && flow.flow !== x.expectedId) {
    report(
      'flow-id-mismatch',
      ['flow'],
      'error',
      `flow id "${flow.flow}" differs from the file name`,
      `rename the file to ${flow.flow}.flow.yaml or set flow: ${x.expectedId}`,
      { within: flow.flow, change: x.expectedId },
    );
  }
  lintTriggers(flow, report);
  lintReferences(x, w, report);
  lintReachability(flow, w, report);
  for (const [id, step] of Object.entries(flow.steps)) lintStep(x, id, step, report);
  for (const c of w.conditions) checkCondition(c.condition, c.path, report, x.registry);
  lintComputedValues(flow, report);
  for (const e of w.effects) {
    if (!x.registry.effects[e.name])
      unknownName(report, e.path, 'effect', e.name, Object.keys(x.registry.effects));
  }

  lintTasks(x, w, report);
  lintTaskInputs(x, w, report);
  lintIntents(x, report);
  lintEvents(x, report);
  lintTexts(x, w.texts, report);
  lintVars(x, w, report, (p) => problems.push(p));
  lintKeyboards(flow, report);
  lintDesigner(x, report);
  lintTypedAnswers(x, report);
  return problems;
}

/** Regular expressions of keyword and deep-link triggers: valid, and safe whatever the input. */
function lintTriggers(flow: FlowFile, report: Report): void {
  (flow.triggers ?? []).forEach((t, i) => {
    const payload = typeof t.bot_started === 'object' ? t.bot_started.payload : undefined;
    for (const [key, text] of [
      ['keyword', t.keyword],
      ['payload', payload],
    ] as const) {
      const m = typeof text === 'string' ? /^\/(.+)\/([a-z]*)$/.exec(text) : null;
      const at = key === 'payload' ? ['triggers', i, 'bot_started', 'payload'] : ['triggers', i, key];
      if (m) checkRegex(m[1]!, m[2]!, at, report);
    }
  });
}

/** Every goto names a step of the flow; every call a flow that exists and does not lead back here. */
function lintReferences(x: LintInput, w: FlowWalk, report: Report): void {
  const { flow } = x;
  const stepIds = Object.keys(flow.steps);
  for (const r of w.refs) {
    if (!flow.steps[r.to]) {
      const guess = closest(r.to, stepIds);
      report(
        'unknown-step',
        r.path,
        'error',
        `unknown step "${r.to}"`,
        guess ? `did you mean "${guess}"?` : `steps are: ${stepIds.join(', ')}`,
        { within: r.to, ...(guess ? { change: guess } : {}) },
      );
    }
  }
  for (const c of w.calls) {
    if (!x.flows.has(c.flow)) {
      const guess = closest(c.flow, x.flows.keys());
      report(
        'unknown-flow',
        c.path,
        'error',
        `unknown flow "${c.flow}"`,
        guess ? `did you mean "${guess}"?` : 'add flows/<id>.flow.yaml',
        { within: c.flow, ...(guess ? { change: guess } : {}) },
      );
    } else if (callsItself(flow.flow, c.flow, x.flows, new Set())) {
      report(
        'recursive-call',
        c.path,
        'error',
        `calling "${c.flow}" leads back to "${flow.flow}": calls cannot be recursive`,
        'use goto for loops',
      );
    }
  }
}

/** Steps nothing leads to: from start along every edge; global command targets are reachable from anywhere. */
function lintReachability(flow: FlowFile, w: FlowWalk, report: Report): void {
  const stepIds = Object.keys(flow.steps);
  const reachable = new Set<string>();
  const todo = [
    flow.start,
    ...w.refs.filter((r) => r.path[0] === 'commands' || r.path[0] === 'understand').map((r) => r.to),
  ];
  while (todo.length) {
    const id = todo.pop()!;
    if (reachable.has(id) || !flow.steps[id]) continue;
    reachable.add(id);
    for (const r of w.refs) if (r.from === id) todo.push(r.to);
  }
  for (const id of stepIds) {
    if (!reachable.has(id)) {
      report(
        'unreachable-step',
        ['steps', id],
        'warning',
        `step "${id}" is unreachable`,
        'link it from another step, or delete it',
        { key: true },
      );
    }
  }
}

function checkCondition(c: import('./schema.ts').Condition, path: Path, report: Report, registry: Registry) {
  const { kinds, comparisons } = conditionShape(c);
  if (kinds.length !== 1) {
    report(
      'bad-condition',
      path,
      'error',
      'a condition needs exactly one of var, all, any, not, guard or expr',
      'e.g. {var: age, lt: 18}',
    );
  } else if (kinds[0] === 'var' && comparisons.length === 0) {
    report(
      'bad-condition',
      path,
      'error',
      `condition on "${c.var}" has no comparison`,
      'add eq, ne, lt, le, gt, ge, in, matches or exists',
    );
  } else if (kinds[0] !== 'var' && comparisons.length) {
    report('bad-condition', path, 'error', 'comparisons need a var');
  }
  if (c.matches !== undefined) checkRegex(c.matches, 'u', [...path, 'matches'], report);
  if (c.expr !== undefined) checkExpression(c.expr, [...path, 'expr'], report);
  c.all?.forEach((x, i) => {
    checkCondition(x, [...path, 'all', i], report, registry);
  });
  c.any?.forEach((x, i) => {
    checkCondition(x, [...path, 'any', i], report, registry);
  });
  if (c.not) checkCondition(c.not, [...path, 'not'], report, registry);
  if (c.guard && !registry.guards[c.guard]) {
    for (const g of guardsOf({ guard: c.guard }))
      unknownName(report, [...path, 'guard'], 'guard', g, Object.keys(registry.guards));
  }
}

function callsItself(root: string, callee: string, flows: Map<string, FlowFile>, seen: Set<string>): boolean {
  if (callee === root) return true;
  if (seen.has(callee)) return false;
  seen.add(callee);
  const f = flows.get(callee);
  if (!f) return false;
  return walkFlow(f).calls.some((c) => callsItself(root, c.flow, flows, seen));
}
