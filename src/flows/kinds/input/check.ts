/**
 * The `input` step's own checks (`botflow check`): what a choice needs (options, or `options_from` with its
 * empty path), a way out when retries run out, `validate:` rules that can pass for its kinds, a time zone
 * the runtime knows, and intents that typed text can still reach.
 */
import { isTimeZone } from '../../../engine/step/wall-clock.ts';
import { BUILTIN_RULES, kindsOf, RULE_KINDS } from '../../inputs.ts';
import { checkRegex, unknownName } from '../../lint-input.ts';
import type { StepCheck } from '../contract.ts';
import type { InputStep } from './schema.ts';

/** An input's `options_from`: a choice, with an empty path, a text under i18n, a value naming the item. */
function checkOptionsFrom(step: InputStep, { x, id, report }: StepCheck): void {
  const p = ['steps', id];
  const from = step.options_from!;
  const at = [...p, 'options_from'];
  if (step.options)
    report(
      'options-and-options-from',
      at,
      'error',
      'a step takes options or options_from, not both',
      'keep one',
    );
  if (!kindsOf(step).includes('choice'))
    report(
      'options-from-not-choice',
      [...p, 'input'],
      'error',
      'options_from builds the buttons of an input: choice',
      'write input: choice',
    );
  if (!from.empty?.goto && !from.empty?.call)
    report(
      'no-empty-path',
      at,
      'error',
      `options_from of "${id}" has no empty path: with an empty list the person would get a question and no buttons`,
      'add empty: {say: "Nothing to choose from", goto: <step>}',
    );
  if (x.flow.i18n && from.text === undefined)
    report(
      'options-from-no-text',
      at,
      'error',
      'options_from has no text, and its default "{{item}}" is not a message id: the buttons would show {{item}}',
      'add text: <message id>, with { $item } (or { $item_time }) in the catalogs',
    );
  if (from.value && !/^item(\.[\w-]+)*$/.test(from.value))
    report(
      'bad-options-value',
      [...at, 'value'],
      'error',
      'value names the element (item) or a field of it',
      'e.g. value: item.id',
    );
}

/** An input's options: what a choice needs, options or options_from (with its empty path), exhausted. */
function checkOptions(step: InputStep, c: StepCheck): void {
  const { id, report } = c;
  const p = ['steps', id];
  const kinds = kindsOf(step);
  const choice = kinds.includes('choice') || kinds.includes('multi_choice');
  if (choice && !step.options?.length && !step.options_from) {
    report(
      'choice-without-options',
      [...p, 'input'],
      'error',
      'a choice input needs options',
      'add options: [{id: yes, text: Yes}, …], or options_from: {list: <variable>} for choices from data',
    );
  }
  if (step.options && !choice)
    report(
      'options-unused',
      [...p, 'options'],
      'warning',
      'options are only used by input: choice and multi_choice',
    );
  if (step.options_from) checkOptionsFrom(step, c);
  if (!step.retries.exhausted.goto && !step.retries.exhausted.call) {
    report(
      'no-exhausted-path',
      [...p, 'retries', 'exhausted'],
      'error',
      `input "${id}" has no exhausted path: after ${step.retries.max} failures the person would be stuck`,
      'add goto: <step> under retries.exhausted',
    );
  }
}

/** One built-in `validate:` rule: it can pass for the input's kinds, and has what it needs. */
function checkBuiltinRule(
  step: InputStep,
  rule: NonNullable<InputStep['validate']>[number],
  at: (string | number)[],
  report: StepCheck['report'],
): void {
  const kinds = kindsOf(step);
  const fits = RULE_KINDS[rule.rule] ?? [];
  if (!kinds.some((k) => fits.includes(k))) {
    report(
      'rule-never-passes',
      [...at, 'rule'],
      'error',
      `rule ${rule.rule} can never pass for input ${kinds.join(', ')}`,
      `it works for ${fits.join(', ')}; use a validator of yours for this input`,
    );
  }
  if ((rule.rule === 'length' || rule.rule === 'range') && rule.min === undefined && rule.max === undefined) {
    report('incomplete-rule', at, 'error', `rule ${rule.rule} needs min or max`);
  }
  if (rule.rule === 'regex') {
    if (rule.pattern === undefined) report('incomplete-rule', at, 'error', 'rule regex needs a pattern');
    else checkRegex(rule.pattern, 'u', [...at, 'pattern'], report);
  }
}

/** An input's `validate:` rules: built-in ones that can pass for its kinds, else registered validators. */
function checkValidate(step: InputStep, { x, id, report }: StepCheck): void {
  (step.validate ?? []).forEach((v, i) => {
    const at = ['steps', id, 'validate', i];
    if (BUILTIN_RULES.has(v.rule)) checkBuiltinRule(step, v, at, report);
    else if (!x.registry.validators[v.rule])
      unknownName(report, [...at, 'rule'], 'validator', v.rule, Object.keys(x.registry.validators), [
        ...BUILTIN_RULES,
      ]);
  });
}

/** A range rule on a number whose bounds are written as text: no answer can pass. */
function checkRangeBounds(step: InputStep, { id, report }: StepCheck): void {
  const kinds = kindsOf(step);
  (step.validate ?? []).forEach((rule, i) => {
    if (rule.rule !== 'range' || !kinds.every((k) => k === 'number' || k === 'integer')) return;
    for (const b of [rule.min, rule.max])
      if (typeof b === 'string')
        report(
          'rule-never-passes',
          ['steps', id, 'validate', i],
          'error',
          `range bound "${b}" is text, but the answer is a number: no answer can pass`,
          'write it as a number',
        );
  });
}

/** The input's own checks. */
export function checkInput(step: InputStep, c: StepCheck): void {
  const { id, report } = c;
  checkOptions(step, c);
  checkValidate(step, c);
  checkRangeBounds(step, c);
  if (kindsOf(step).includes('text') && step.understand && Object.keys(step.understand.intents).length)
    report(
      'intents-never-read',
      ['steps', id, 'understand'],
      'warning',
      `step "${id}" takes any text as its answer, so its own intents are never read`,
      'use a menu step (or input: choice) for intents; global intents still work here',
      { key: true },
    );
  if (step.time_zone && !step.time_zone.includes('{{') && !isTimeZone(step.time_zone))
    report(
      'unknown-time-zone',
      ['steps', id, 'time_zone'],
      'error',
      `unknown time zone "${step.time_zone}"`,
      'an IANA zone like Europe/Moscow or America/New_York, UTC, or "{{variable}}"',
    );
}
