/**
 * The checks of one step (lint.ts): its media, its keyboard, then what its kind asks — a menu's way out, a
 * message's buttons, an input's options and rules — and its `next` list.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { lintButton } from './buttons.ts';
import { BUILTIN_RULES, RULE_KINDS } from './inputs.ts';
import type { LintInput, Report } from './lint-input.ts';
import { closest, type Problem } from './problems.ts';
import { compileFlowRegex } from './safe-regex.ts';
import type { Button, FlowFile, InputStep, MenuStep, Step } from './schema.ts';
import type { Path } from './yaml-source.ts';

/** A registered name (effect, validator, guard) that the registry does not have, with a did-you-mean. */
export function unknownName(
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
export function checkRegex(
  source: string,
  flags: string,
  path: Path,
  report: (path: Path, severity: Problem['severity'], message: string, hint?: string) => void,
): void {
  const compiled = compileFlowRegex(source, flags);
  if ('error' in compiled) report(path, 'error', `the regular expression /${source}/ ${compiled.error}`);
}

/** A button's path in its step's keyboard. */
function pathOfButton(flow: FlowFile, id: string, b: unknown): Path {
  const step = flow.steps[id]!;
  const rows = 'keyboard' in step ? (step.keyboard ?? []) : [];
  for (let r = 0; r < rows.length; r++) {
    const c = rows[r]!.indexOf(b as never);
    if (c >= 0) return ['steps', id, 'keyboard', r, c];
  }
  return ['steps', id, 'keyboard'];
}

/** A step sends one media file, and a file it names exists. */
function lintMedia(x: LintInput, p: Path, step: Step, report: Report): void {
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
}

/** Each button, and the ids unique in the step. */
function lintKeyboard(flow: FlowFile, id: string, buttons: Button[], report: Report): void {
  const p = ['steps', id];
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
}

/** A menu someone can leave: a callback button, and one that goes somewhere. */
function lintMenu(flow: FlowFile, id: string, step: MenuStep, buttons: Button[], report: Report): void {
  const p = ['steps', id];
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

/** An input's options: what a choice needs, options or options_from (with its empty path), exhausted. */
function lintInputOptions(flow: FlowFile, id: string, step: InputStep, report: Report): void {
  const p = ['steps', id];
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
}

/** An input's `validate:` rules: built-in ones that can pass for its kinds, else registered validators. */
function lintValidate(x: LintInput, id: string, step: InputStep, report: Report): void {
  const p = ['steps', id];
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

/** One step: its media, buttons, menu exits, inputs and their rules, and its `next` list. */
export function lintStep(x: LintInput, id: string, step: Step, report: Report): void {
  const { flow } = x;
  const p = ['steps', id];
  lintMedia(x, p, step, report);
  const buttons = 'keyboard' in step ? (step.keyboard ?? []).flat() : [];
  lintKeyboard(flow, id, buttons, report);
  if (step.type === 'menu') lintMenu(flow, id, step, buttons, report);
  if (step.type === 'message' && buttons.some((b) => b.id)) {
    report(
      [...p, 'keyboard'],
      'error',
      'a message step moves on at once, so its callback buttons would always be stale',
      'make it a menu step',
    );
  }
  if (step.type === 'input') {
    lintInputOptions(flow, id, step, report);
    lintValidate(x, id, step, report);
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
