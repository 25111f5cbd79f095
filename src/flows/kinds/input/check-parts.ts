/**
 * What `botflow check` asks an `input` step beyond its own checks: where its typed answers lead, the options
 * a person can name by typing, and the buttons it draws itself (for the platform's keyboard limits).
 */
import { kindsOf, MULTI_DONE } from '../../inputs.ts';
import type { Path } from '../../problems.ts';
import { DEFAULT_PAGE_SIZE } from '../../render.ts';
import type { StepKind } from '../contract.ts';
import type { InputKind } from '../fields.ts';
import type { InputStep } from './schema.ts';

/** Kinds whose answer is typed text (length and regex rules test the text). */
const TYPED = new Set<InputKind>(['text', 'number', 'integer', 'email', 'phone', 'date', 'time', 'url']);

/** Its `next` targets, after free text, or after a choice (which takes typed answers too: "the second one"). */
export const typedAnswer: NonNullable<StepKind<InputStep>['typedAnswer']> = (step) => {
  const kinds = kindsOf(step);
  const to = typeof step.next === 'string' ? [step.next] : step.next.map((n) => n.goto);
  if (kinds.some((k) => TYPED.has(k))) return { to, as: 'text' };
  if (kinds.some((k) => k === 'choice' || k === 'multi_choice')) return { to, as: 'choice' };
  return undefined;
};

/** Its options, by label or alias. */
export const typedChoices = (step: InputStep, id: string) =>
  (step.options ?? []).map((o, i) => ({ ...o, path: ['steps', id, 'options', i] }));

/** Its options in rows of `columns` (and multi_choice's Done), or the fullest page of `options_from` and ‹ ›. */
export function buttonRows(step: InputStep, id: string) {
  const rows: Record<string, unknown>[][] = [];
  const paths: Path[] = [];
  const per = step.columns ?? 1;
  if (step.options) {
    for (let i = 0; i < step.options.length; i += per) {
      rows.push(step.options.slice(i, i + per).map((o) => ({ type: 'callback', text: 'x', payload: o.id })));
      paths.push(['steps', id, 'options', i]);
    }
    if (kindsOf(step).includes('multi_choice')) {
      rows.push([{ type: 'callback', text: 'x', payload: MULTI_DONE }]);
      paths.push(['steps', id, 'input']);
    }
  }
  if (!step.options_from) return { rows, paths };
  const size = step.options_from.page_size ?? DEFAULT_PAGE_SIZE;
  for (let i = 0; i < size; i += per) {
    rows.push(
      Array.from({ length: Math.min(per, size - i) }, () => ({ type: 'callback', text: 'x', payload: '#0' })),
    );
    paths.push(['steps', id, 'options_from']);
  }
  rows.push([
    { type: 'callback', text: 'x', payload: '#p0' },
    { type: 'callback', text: 'x', payload: '#p1' },
  ]);
  paths.push(['steps', id, 'options_from']);
  return {
    rows,
    paths,
    hint: 'lower options_from.page_size or raise columns: a page shows page_size / columns rows, then ‹ ›',
  };
}
