/** readAnswer with typed answers: declared options, choices from a list, several picks, dates in a zone. */
import { describe, expect, it } from 'vitest';
import type { FlowEvent } from '../../src/engine/step/contract.ts';
import { type AnswerScope, readAnswer } from '../../src/flows/inputs.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import type { InputStep } from '../../src/flows/schema.ts';

const NOW = Date.parse('2026-01-05T21:30:00Z'); // Monday in UTC, Tuesday in Moscow
const said = (text: string) =>
  ({
    type: 'message',
    text,
    attachments: [],
    message: {},
    meta: { conversation: 'u:1', chatId: 1, userId: 1, now: NOW },
  }) as unknown as FlowEvent;

const LABELS: Record<string, Record<string, string>> = {
  en: { 'opt-tea': 'Tea', 'opt-coffee': 'Coffee', 'opt-cocoa': 'Hot cocoa' },
  ru: { 'opt-tea': 'Чай', 'opt-coffee': 'Кофе', 'opt-cocoa': 'Какао' },
};
/** The person's locale and the default one, as the compiled flow renders labels. */
const scope = (locale: string, extra: Partial<AnswerScope> = {}): AnswerScope => ({
  vars: {},
  locale,
  registry: EMPTY_REGISTRY,
  now: NOW,
  defaultLocale: 'en',
  labels: (id) => [...new Set([LABELS[locale]?.[id] ?? id, LABELS.en![id] ?? id])],
  ...extra,
});

function step(input: InputStep['input'], more: Partial<InputStep> = {}): InputStep {
  return {
    type: 'input',
    say: 'Which?',
    input,
    options: [
      { id: 'tea', text: 'opt-tea', aliases: { ru: ['чаек'] } },
      { id: 'coffee', text: 'opt-coffee', aliases: ['espresso'] },
      { id: 'cocoa', text: 'opt-cocoa' },
    ],
    retries: { max: 2, exhausted: { goto: 'x' } },
    save: 'drink',
    next: 'x',
    ...more,
  } as InputStep;
}

describe('readAnswer: typed choices', () => {
  it('labels in the person’s locale and the default one, aliases, positions, typos', () => {
    const choice = step('choice');
    expect(readAnswer(choice, said('Кофе'), scope('ru'))).toEqual({ ok: true, value: 'coffee' });
    expect(readAnswer(choice, said('coffee'), scope('ru'))).toEqual({ ok: true, value: 'coffee' });
    expect(readAnswer(choice, said('чаёк'), scope('ru'))).toEqual({ ok: true, value: 'tea' });
    expect(readAnswer(choice, said('чаек'), scope('en'))).toMatchObject({ ok: false }); // a ru alias
    expect(readAnswer(choice, said('Espresso!'), scope('en'))).toEqual({ ok: true, value: 'coffee' });
    expect(readAnswer(choice, said('the third one'), scope('en'))).toEqual({ ok: true, value: 'cocoa' });
    expect(readAnswer(choice, said('третий'), scope('ru'))).toEqual({ ok: true, value: 'cocoa' });
    expect(readAnswer(choice, said('cofee'), scope('en'))).toEqual({ ok: true, value: 'coffee' });
    expect(readAnswer(choice, said('juice'), scope('en'))).toEqual({
      ok: false,
      error: { builtin: 'error-choice' },
    });
  });

  it('an answer that fits two options asks about them; another kind of the step that reads it wins', () => {
    const close = step('choice', {
      options: [
        { id: 'a', text: 'Birthday cake' },
        { id: 'b', text: 'Birthday cafe' },
      ],
    });
    const none = { ...scope('en'), labels: undefined };
    expect(readAnswer(close, said('birthday cave'), none)).toEqual({
      ok: false,
      error: { builtin: 'clarify' },
      clarify: ['a', 'b'],
    });
    const orText = { ...close, input: ['choice', 'text'] } as InputStep;
    expect(readAnswer(orText, said('birthday cave'), none)).toEqual({ ok: true, value: 'birthday cave' });
  });

  it('a step that also takes a number reads digits as the number, words as the position', () => {
    const orCount = step(['choice', 'integer'], {
      options: [
        { id: 'two', text: 'Two people' },
        { id: 'four', text: 'Four people' },
      ],
    });
    const none = { ...scope('en'), labels: undefined };
    expect(readAnswer(orCount, said('2'), none)).toEqual({ ok: true, value: 2 });
    expect(readAnswer(orCount, said('second'), none)).toEqual({ ok: true, value: 'four' });
    expect(readAnswer(step('choice'), said('2'), scope('en'))).toEqual({ ok: true, value: 'coffee' });
  });

  it('choices from a list: by text, position or words; ambiguous ones are asked about by index', () => {
    const fromList = step('choice', {
      options: undefined,
      options_from: { list: 'slots', empty: { goto: 'x' } },
    });
    const choices = [
      { text: '18:00 (4 seats)', value: '18:00' },
      { text: '18:30 (4 seats)', value: '18:30' },
      { text: '20:30 (6 seats)', value: '20:30' },
    ];
    const s = scope('en', { choices });
    expect(readAnswer(fromList, said('20:30'), s)).toEqual({ ok: true, value: '20:30' });
    expect(readAnswer(fromList, said('the second'), s)).toEqual({ ok: true, value: '18:30' });
    expect(readAnswer(fromList, said('последний'), s)).toEqual({ ok: true, value: '20:30' });
    expect(readAnswer(fromList, said('4 seats'), s)).toMatchObject({ ok: false, clarify: ['#0', '#1'] });
  });

  it('several picks typed: ids, labels, positions and aliases joined by commas, "and", "и"', () => {
    const multi = step('multi_choice');
    expect(readAnswer(multi, said('tea, cocoa'), scope('en'))).toEqual({ ok: true, value: ['tea', 'cocoa'] });
    expect(readAnswer(multi, said('espresso and hot cocoa'), scope('en'))).toEqual({
      ok: true,
      value: ['coffee', 'cocoa'],
    });
    expect(readAnswer(multi, said('1 и 2'), scope('ru'))).toEqual({ ok: true, value: ['tea', 'coffee'] });
    expect(readAnswer(multi, said('чай, сок'), scope('ru'))).toMatchObject({ ok: false });
  });
});

describe('readAnswer: dates and times in the person’s zone', () => {
  it('a date step reads words on the person’s day, and range bounds too', () => {
    const day = step('date', {
      options: undefined,
      validate: [{ rule: 'range', min: 'today', max: '+7d' }],
    });
    expect(readAnswer(day, said('tomorrow'), scope('en'))).toEqual({ ok: true, value: '2026-01-06' });
    expect(readAnswer(day, said('tomorrow'), scope('en', { timeZone: 'Europe/Moscow' }))).toEqual({
      ok: true,
      value: '2026-01-07',
    });
    // Monday the 5th is already "yesterday" in Moscow: below the bound `today`.
    expect(readAnswer(day, said('05.01.2026'), scope('ru', { timeZone: 'Europe/Moscow' }))).toMatchObject({
      ok: false,
      error: { builtin: 'rule-range', args: { min: '2026-01-06' } },
    });
    expect(readAnswer(day, said('завтра в 19:00'), scope('ru'))).toEqual({ ok: true, value: '2026-01-06' });
  });

  it('a time step reads words, and the time of a date with a time', () => {
    const at = step('time', { options: undefined });
    expect(readAnswer(at, said('7pm'), scope('en'))).toEqual({ ok: true, value: '19:00' });
    expect(readAnswer(at, said('завтра в 7 вечера'), scope('ru'))).toEqual({ ok: true, value: '19:00' });
    expect(readAnswer(at, said('18:30'), scope('en'))).toEqual({ ok: true, value: '18:30' });
    expect(readAnswer(at, said('soon'), scope('en'))).toEqual({
      ok: false,
      error: { builtin: 'error-time' },
    });
  });
});
