/**
 * The semantic pass over a flow that passed the schema: references, reachability, dead ends, inputs,
 * conditions, registered names, i18n keys in every locale, and the platform's message and keyboard
 * limits (checked with the API client's own limit checks, per locale).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { lintButton } from './buttons.ts';
import { conditionShape, guardsOf } from './conditions.ts';
import { walkFlow } from './flow-walk.ts';

type FlowWalk = ReturnType<typeof walkFlow>;

import { BUILTIN_RULES, RULE_KINDS } from './inputs.ts';
import { lintDesigner } from './lint-designer.ts';
import { lintEvents } from './lint-events.ts';
import { checkExpression, lintComputedValues } from './lint-expressions.ts';
import type { LintInput, Report } from './lint-input.ts';
import { lintIntents } from './lint-intents.ts';
import { lintTaskInputs } from './lint-task-input.ts';
import { lintTasks } from './lint-tasks.ts';
import { lintKeyboards, lintTexts } from './lint-texts.ts';
import { lintTypedAnswers } from './lint-typed.ts';
import { lintVars } from './lint-vars.ts';
import { closest, type Problem } from './problems.ts';
import type { Registry } from './registry.ts';
import { compileFlowRegex } from './safe-regex.ts';
import type { FlowFile, Step } from './schema.ts';
import type { Path } from './yaml-source.ts';

/** Checks one flow; returns its problems (errors and warnings). */
export function lintFlow(x: LintInput): Problem[] {
  const { flow, file, locate } = x;
  const problems: Problem[] = [];
  const report = (path: Path, severity: Problem['severity'], message: string, hint?: string, key = false) =>
    problems.push({ file, ...locate.at(path, key), severity, message, hint });
  const w = walkFlow(flow);

  if (x.expectedId && flow.flow !== x.expectedId) {
    report(
      ['flow'],
      'error',
      `flow id "${flow.flow}" differs from the file name`,
      `rename the file to ${flow.flow}.flow.yaml or set flow: ${x.expectedId}`,
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
        r.path,
        'error',
        `unknown step "${r.to}"`,
        guess ? `did you mean "${guess}"?` : `steps are: ${stepIds.join(', ')}`,
      );
    }
  }
  for (const c of w.calls) {
    if (!x.flows.has(c.flow)) {
      const guess = closest(c.flow, x.flows.keys());
      report(
        c.path,
        'error',
        `unknown flow "${c.flow}"`,
        guess ? `did you mean "${guess}"?` : 'add flows/<id>.flow.yaml',
      );
    } else if (callsItself(flow.flow, c.flow, x.flows, new Set())) {
      report(
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
        ['steps', id],
        'warning',
        `step "${id}" is unreachable`,
        'link it from another step, or delete it',
        true,
      );
    }
  }
}

/** One step: its media, buttons, menu exits, inputs and their rules, and its `next` list. */
function lintStep(x: LintInput, id: string, step: Step, report: Report): void {
  const { flow } = x;
  const p = ['steps', id];
  const media = 'media' in step && step.media ? Object.entries(step.media).filter(([, v]) => v) : [];
  if (media.length > 1)
    report([...p, 'media'], 'error', 'a step sends one media file', 'keep one of image, video, audio, file');
  for (const [kind, source] of media) {
    if (!/^https?:\/\//.test(source!) && !existsSync(resolve(x.baseDir ?? '.', source!))) {
      report(
        [...p, 'media', kind],
        'error',
        `media file "${source}" does not exist`,
        `paths are relative to the flows folder (${x.baseDir ?? '.'})`,
      );
    }
  }
  const buttons = 'keyboard' in step ? (step.keyboard ?? []).flat() : [];
  buttons.forEach((b) => {
    lintButton(b, pathOfButton(flow, id, b), report);
  });
  const ids = buttons.map((b) => b.id).filter(Boolean);
  const dup = ids.find((b, i) => ids.indexOf(b) !== i);
  if (dup)
    report(
      [...p, 'keyboard'],
      'error',
      `two buttons of step "${id}" have the id "${dup}"`,
      'ids must be unique per step',
    );
  if (step.type === 'menu') {
    const understood = step.understand ? Object.values(step.understand.intents) : [];
    const leaves =
      buttons.some((b) => b.id && (b.goto || b.call)) || step.on_text?.goto || understood.some((r) => r.goto);
    if (!buttons.some((b) => b.id || b.request)) {
      report(
        [...p, 'keyboard'],
        'error',
        `menu "${id}" has no callback button: nobody can leave it`,
        'add a button with an id and a goto',
      );
    } else if (!leaves && !flow.commands) {
      report(
        [...p, 'keyboard'],
        'warning',
        `no button of menu "${id}" goes anywhere (dead end)`,
        'give a button a goto',
      );
    }
  }
  if (step.type === 'message' && buttons.some((b) => b.id)) {
    report(
      [...p, 'keyboard'],
      'error',
      'a message step moves on at once, so its callback buttons would always be stale',
      'make it a menu step',
    );
  }
  if (step.type === 'input') {
    const kinds = Array.isArray(step.input) ? step.input : [step.input];
    if (
      (kinds.includes('choice') || kinds.includes('multi_choice')) &&
      !step.options?.length &&
      !step.options_from
    ) {
      report(
        [...p, 'input'],
        'error',
        'a choice input needs options',
        'add options: [{id: yes, text: Yes}, …], or options_from: {list: <variable>} for choices from data',
      );
    }
    if (step.options && !kinds.includes('choice') && !kinds.includes('multi_choice'))
      report([...p, 'options'], 'warning', 'options are only used by input: choice and multi_choice');
    if (step.options_from) {
      const at = [...p, 'options_from'];
      if (step.options) report(at, 'error', 'a step takes options or options_from, not both', 'keep one');
      if (!kinds.includes('choice'))
        report(
          [...p, 'input'],
          'error',
          'options_from builds the buttons of an input: choice',
          'write input: choice',
        );
      if (!step.options_from.empty?.goto && !step.options_from.empty?.call)
        report(
          at,
          'error',
          `options_from of "${id}" has no empty path: with an empty list the person would get a question and no buttons`,
          'add empty: {say: "Nothing to choose from", goto: <step>}',
        );
      if (flow.i18n && step.options_from.text === undefined)
        report(
          at,
          'error',
          'options_from has no text, and its default "{{item}}" is not a message id: the buttons would show {{item}}',
          'add text: <message id>, with { $item } (or { $item_time }) in the catalogs',
        );
      if (step.options_from.value && !/^item(\.[\w-]+)*$/.test(step.options_from.value))
        report(
          [...at, 'value'],
          'error',
          'value names the element (item) or a field of it',
          'e.g. value: item.id',
        );
    }
    if (!step.retries.exhausted.goto && !step.retries.exhausted.call) {
      report(
        [...p, 'retries', 'exhausted'],
        'error',
        `input "${id}" has no exhausted path: after ${step.retries.max} failures the person would be stuck`,
        'add goto: <step> under retries.exhausted',
      );
    }
    (step.validate ?? []).forEach((v, i) => {
      const vp = [...p, 'validate', i];
      if (BUILTIN_RULES.has(v.rule)) {
        const kinds = Array.isArray(step.input) ? step.input : [step.input];
        const fits = RULE_KINDS[v.rule] ?? [];
        if (!kinds.some((k) => fits.includes(k))) {
          report(
            [...vp, 'rule'],
            'error',
            `rule ${v.rule} can never pass for input ${kinds.join(', ')}`,
            `it works for ${fits.join(', ')}; use a validator of yours for this input`,
          );
        }
        if ((v.rule === 'length' || v.rule === 'range') && v.min === undefined && v.max === undefined) {
          report(vp, 'error', `rule ${v.rule} needs min or max`);
        }
        if (v.rule === 'regex') {
          if (v.pattern === undefined) report(vp, 'error', 'rule regex needs a pattern');
          else checkRegex(v.pattern, 'u', [...vp, 'pattern'], report);
        }
      } else if (!x.registry.validators[v.rule]) {
        unknownName(report, [...vp, 'rule'], 'validator', v.rule, Object.keys(x.registry.validators), [
          ...BUILTIN_RULES,
        ]);
      }
    });
  }
  if ('next' in step && Array.isArray(step.next) && step.next[step.next.length - 1]?.when) {
    report(
      [...p, 'next', step.next.length - 1],
      'error',
      'the last entry of next has a condition: when none holds, nothing happens',
      'end the list with an entry without when',
    );
  }
}

function unknownName(
  report: Report,
  path: Path,
  kind: string,
  name: string,
  known: string[],
  builtin: string[] = [],
) {
  const guess = closest(name, [...known, ...builtin]);
  report(
    path,
    'error',
    `unknown ${kind} "${name}"`,
    guess ? `did you mean "${guess}"?` : `register it with defineRegistry({ ${kind}s: { ${name}: … } })`,
  );
}

/** Reports a flow-file pattern that is not valid or could backtrack catastrophically (safe-regex.ts). */
function checkRegex(
  source: string,
  flags: string,
  path: Path,
  report: (path: Path, severity: Problem['severity'], message: string, hint?: string) => void,
): void {
  const compiled = compileFlowRegex(source, flags);
  if ('error' in compiled) report(path, 'error', `the regular expression /${source}/ ${compiled.error}`);
}

function checkCondition(c: import('./schema.ts').Condition, path: Path, report: Report, registry: Registry) {
  const { kinds, comparisons } = conditionShape(c);
  if (kinds.length !== 1) {
    report(
      path,
      'error',
      'a condition needs exactly one of var, all, any, not, guard or expr',
      'e.g. {var: age, lt: 18}',
    );
  } else if (kinds[0] === 'var' && comparisons.length === 0) {
    report(
      path,
      'error',
      `condition on "${c.var}" has no comparison`,
      'add eq, ne, lt, le, gt, ge, in, matches or exists',
    );
  } else if (kinds[0] !== 'var' && comparisons.length) {
    report(path, 'error', 'comparisons need a var');
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

function pathOfButton(flow: FlowFile, id: string, b: unknown): Path {
  const step = flow.steps[id]!;
  const rows = 'keyboard' in step ? (step.keyboard ?? []) : [];
  for (let r = 0; r < rows.length; r++) {
    const c = rows[r]!.indexOf(b as never);
    if (c >= 0) return ['steps', id, 'keyboard', r, c];
  }
  return ['steps', id, 'keyboard'];
}
