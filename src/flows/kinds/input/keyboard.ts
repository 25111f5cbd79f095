/**
 * What an `input` step draws and copies: its options as buttons (✓ on the picked ones of a multi_choice,
 * then Done), one page of its `options_from` choices with ‹ and ›, and those choices copied from the list
 * when the step is entered.
 */
import { choiceId, kindsOf, MULTI_DONE, pageId, type SayText } from '../../inputs.ts';
import type { FlowContext, StepEntry } from '../../machine-context.ts';
import { DEFAULT_PAGE_SIZE } from '../../render.ts';
import { readVar } from '../../vars.ts';
import type { Choice, Drawing } from '../contract.ts';
import type { InputStep } from './schema.ts';

type Say = (e: StepEntry, c: FlowContext, text: SayText | string) => string;

/** An input's options as rows of `columns` buttons (✓ on the picked ones of a multi_choice, then Done). */
function optionRows(e: StepEntry, c: FlowContext, s: InputStep, say: Say, doneText: string | undefined) {
  const rows: unknown[][] = [];
  const options = s.options ?? [];
  const per = s.columns ?? 1;
  const multi = doneText !== undefined;
  const mark = (id: string) => (multi && c.picked?.includes(id) ? '✓ ' : '');
  for (let i = 0; i < options.length; i += per) {
    rows.push(
      options
        .slice(i, i + per)
        .map((o) => ({ type: 'callback', text: mark(o.id) + say(e, c, o.text), payload: o.id })),
    );
  }
  if (multi) rows.push([{ type: 'callback', text: doneText, payload: MULTI_DONE }]);
  return rows;
}

/** One page of an `options_from` step's choices, with ‹ and › to the pages around it. */
function choiceRows(e: StepEntry, c: FlowContext, per: number, pageSize: number, say: Say) {
  const choices = c.choices ?? [];
  const pages = Math.max(1, Math.ceil(choices.length / pageSize));
  const page = Math.min(Math.max(0, c.page ?? 0), pages - 1);
  const first = page * pageSize;
  const shown = choices.slice(first, first + pageSize);
  const rows: unknown[][] = [];
  for (let i = 0; i < shown.length; i += per) {
    rows.push(
      shown
        .slice(i, i + per)
        .map((choice, j) => ({ type: 'callback', text: choice.text, payload: choiceId(first + i + j) })),
    );
  }
  const nav: unknown[] = [];
  if (page > 0)
    nav.push({
      type: 'callback',
      text: say(e, c, { builtin: 'choices-previous' }),
      payload: pageId(page - 1),
    });
  if (page < pages - 1)
    nav.push({ type: 'callback', text: say(e, c, { builtin: 'choices-next' }), payload: pageId(page + 1) });
  if (nav.length) rows.push(nav);
  return rows;
}

/** An input's keyboard rows: its options, or a page of its choices (its own buttons come after). */
export function inputKeyboard(s: InputStep, e: StepEntry, c: FlowContext, { say, doneText }: Drawing) {
  const rows: unknown[][] = [];
  if (s.options) {
    const multi = kindsOf(s).includes('multi_choice');
    rows.push(...optionRows(e, c, s, say, multi ? doneText(e, c) : undefined));
  }
  if (s.options_from)
    rows.push(...choiceRows(e, c, s.columns ?? 1, s.options_from.page_size ?? DEFAULT_PAGE_SIZE, say));
  return rows;
}

/** The choices of an `options_from` step: one per element of the list, its text and saved value. */
export function inputChoices(s: InputStep, e: StepEntry, c: FlowContext, say: Say): Choice[] | undefined {
  const from = s.options_from;
  if (!from) return undefined;
  const list = readVar(c.vars, from.list);
  return (Array.isArray(list) ? list : []).map((item) => ({
    text: say(e, { ...c, vars: { ...c.vars, item } }, from.text ?? '{{item}}'),
    value: from.value ? (readVar({ item }, from.value) ?? null) : item,
  }));
}
