/** Typed answers read without a model: each rule of the matcher in English and Russian, and ambiguity. */
import { describe, expect, it } from 'vitest';
import { type Candidate, matchOption, tooClose } from '../../src/flows/understand/match.ts';
import { aliasesFor } from '../../src/flows/understand/options.ts';
import { core, editDistance, normalize, typoAllowance } from '../../src/flows/understand/text.ts';
import { positionOf, yesNoOf } from '../../src/flows/understand/words.ts';

const sizes: Candidate[] = [
  { id: 'small', labels: ['Small', 'Маленький'] },
  { id: 'medium', labels: ['Medium', 'Средний'] },
  { id: 'large', labels: ['Large', 'Большой'], aliases: ['XL', 'огромный'] },
];
const pick = (text: string, c: readonly Candidate[] = sizes) => matchOption(text, c);

describe('normalisation', () => {
  it('case, NFKC, ё→е, punctuation, fillers around the answer', () => {
    expect(normalize('  ＭＥＤＩＵＭ!! ')).toBe('medium');
    expect(normalize('Ёжик, ещё')).toBe('ежик еще');
    expect(core('The second one, please')).toBe('second');
    expect(core('вариант №2')).toBe('2');
    expect(core('option #3')).toBe('3');
    // One word is kept even when it is a filler: "one" is an answer.
    expect(core('one')).toBe('one');
  });
});

describe('label (exact, after normalisation)', () => {
  it('English and Russian labels, case and punctuation aside', () => {
    expect(pick('medium')).toEqual({ kind: 'match', id: 'medium', by: 'exact' });
    expect(pick('LARGE!')).toEqual({ kind: 'match', id: 'large', by: 'exact' });
    expect(pick('средний')).toEqual({ kind: 'match', id: 'medium', by: 'exact' });
    expect(pick('Большой.')).toEqual({ kind: 'match', id: 'large', by: 'exact' });
  });
  it('ё and е are one letter', () => {
    const c: Candidate[] = [
      { id: 'hedgehog', labels: ['Ёжик'] },
      { id: 'cat', labels: ['Кот'] },
    ];
    expect(pick('ежик', c)).toMatchObject({ kind: 'match', id: 'hedgehog' });
  });
  it('the id counts as a name, except for choices built from a list', () => {
    expect(pick('small')).toMatchObject({ id: 'small' });
    expect(pick('#0', [{ id: '#0', labels: ['18:00'], idIsName: false }])).toEqual({ kind: 'none' });
  });
});

describe('position', () => {
  it.each([
    ['2', 'medium'],
    ['#2', 'medium'],
    ['2.', 'medium'],
    ['2nd', 'medium'],
    ['second', 'medium'],
    ['the second one', 'medium'],
    ['option 2', 'medium'],
    ['first', 'small'],
    ['last', 'large'],
    ['the last one', 'large'],
    ['второй', 'medium'],
    ['вторая', 'medium'],
    ['2-й', 'medium'],
    ['2-я', 'medium'],
    ['вариант 3', 'large'],
    ['первый', 'small'],
    ['последний', 'large'],
  ])('"%s" → %s', (text, id) => {
    expect(pick(text)).toEqual({ kind: 'match', id, by: 'position' });
  });
  it('a position out of the list is no answer', () => {
    expect(pick('4')).toEqual({ kind: 'none' });
    expect(pick('четвертый')).toEqual({ kind: 'none' });
    expect(positionOf('0', 3)).toBeUndefined();
  });
  it('a label that is a number wins over the position', () => {
    const c: Candidate[] = [
      { id: 'a', labels: ['3'] },
      { id: 'b', labels: ['1'] },
      { id: 'c', labels: ['2'] },
    ];
    expect(pick('3', c)).toEqual({ kind: 'match', id: 'a', by: 'exact' });
  });
});

describe('aliases', () => {
  it('a plain list applies in every locale; a map by locale, by the person’s language then the default', () => {
    expect(pick('xl')).toEqual({ kind: 'match', id: 'large', by: 'exact' });
    expect(pick('огромный')).toEqual({ kind: 'match', id: 'large', by: 'exact' });
    const per = { en: ['by the window'], ru: ['у окна', 'окно'] };
    expect(aliasesFor(per, ['ru-RU', 'en'])).toEqual(['у окна', 'окно', 'by the window']);
    expect(aliasesFor(per, ['en'])).toEqual(['by the window']);
    expect(aliasesFor(['x'], ['de'])).toEqual(['x']);
    expect(aliasesFor(undefined, ['en'])).toEqual([]);
  });
});

describe('yes and no', () => {
  const yn: Candidate[] = [
    { id: 'confirm', labels: ['Yes, book it', 'Да, бронируйте'] },
    { id: 'cancel', labels: ['No', 'Нет'] },
  ];
  it.each([
    ['yes', 'confirm'],
    ['yep', 'confirm'],
    ['Sure!', 'confirm'],
    ['ok', 'confirm'],
    ['да', 'confirm'],
    ['ага', 'confirm'],
    ['конечно', 'confirm'],
    ['no', 'cancel'],
    ['nope', 'cancel'],
    ['no thanks', 'cancel'],
    ['нет', 'cancel'],
    ['неа', 'cancel'],
  ])('"%s" → %s', (text, id) => {
    expect(pick(text, yn)).toMatchObject({ kind: 'match', id });
  });
  it('an option is yes-like by its id, label or alias', () => {
    expect(yesNoOf('Yes')).toBe('yes');
    expect(yesNoOf('Нет.')).toBe('no');
    expect(yesNoOf('maybe')).toBeUndefined();
    const byId: Candidate[] = [
      { id: 'yes', labels: ['Book it'] },
      { id: 'no', labels: ['Not now'] },
    ];
    expect(pick('да', byId)).toEqual({ kind: 'match', id: 'yes', by: 'yes_no' });
    expect(pick('sizes', sizes)).toEqual({ kind: 'none' });
  });
  it('no yes-like option: "yes" is no answer', () => {
    expect(pick('yes')).toEqual({ kind: 'none' });
  });
});

describe('typos', () => {
  it('the allowance grows with the length: none under 4, 1 for 4–7, 2 from 8', () => {
    expect([3, 4, 7, 8, 20].map(typoAllowance)).toEqual([0, 1, 1, 2, 2]);
    expect(editDistance('medium', 'meduim')).toBe(1); // a swap of neighbours is one typo
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('abc', 'xyzw', 1)).toBe(2); // stops early above the limit
  });
  it('English and Russian labels with one or two typos', () => {
    expect(pick('meduim')).toEqual({ kind: 'match', id: 'medium', by: 'typo' });
    expect(pick('lrge')).toEqual({ kind: 'match', id: 'large', by: 'typo' });
    expect(pick('сррдний')).toEqual({ kind: 'match', id: 'medium', by: 'typo' });
    expect(pick('маленькй')).toEqual({ kind: 'match', id: 'small', by: 'typo' });
    expect(pick('мааленкий')).toEqual({ kind: 'match', id: 'small', by: 'typo' }); // 9 letters: two typos
  });
  it('short words take no typo; too far is no answer', () => {
    const c: Candidate[] = [
      { id: 'cat', labels: ['Cat'] },
      { id: 'dog', labels: ['Dog'] },
    ];
    expect(pick('cot', c)).toEqual({ kind: 'none' });
    expect(pick('mdum')).toEqual({ kind: 'none' });
  });
  it('labels of several words: word by word, so "edit nme" is "edit name", never "edit age"', () => {
    const c: Candidate[] = [
      { id: 'edit_name', labels: ['Edit name'] },
      { id: 'edit_age', labels: ['Edit age'] },
    ];
    expect(pick('edit nme', c)).toEqual({ kind: 'match', id: 'edit_name', by: 'typo' });
  });
});

describe('words of a label', () => {
  it('the answer’s words are words of one label', () => {
    const c: Candidate[] = [
      { id: '#0', labels: ['18:00 (4 seats)'], idIsName: false },
      { id: '#1', labels: ['20:30 (6 seats)'], idIsName: false },
    ];
    expect(pick('20:30', c)).toEqual({ kind: 'match', id: '#1', by: 'words' });
    expect(pick('19:00', c)).toEqual({ kind: 'none' });
    expect(pick('seats', c)).toEqual({ kind: 'ambiguous', ids: ['#0', '#1'] });
  });
});

describe('ambiguity: never a guess', () => {
  it('two options one typo away from the answer are both offered (English)', () => {
    const c: Candidate[] = [
      { id: 'cake', labels: ['Birthday cake'] },
      { id: 'cafe', labels: ['Birthday cafe'] },
    ];
    expect(pick('birthday cave', c)).toEqual({ kind: 'ambiguous', ids: ['cake', 'cafe'] });
    expect(pick('birthday cake', c)).toEqual({ kind: 'match', id: 'cake', by: 'exact' });
  });
  it('two options one typo away (Russian), equal labels, two options holding the words', () => {
    const ru: Candidate[] = [
      { id: 'on', labels: ['Включить'] },
      { id: 'off', labels: ['Выключить'] },
    ];
    expect(pick('ыключить', ru)).toEqual({ kind: 'ambiguous', ids: ['on', 'off'] });
    const same: Candidate[] = [
      { id: 'a', labels: ['Завтра'] },
      { id: 'b', labels: ['завтра!'] },
    ];
    expect(pick('завтра', same)).toEqual({ kind: 'ambiguous', ids: ['a', 'b'] });
    const change: Candidate[] = [
      { id: 'day', labels: ['Другой день'] },
      { id: 'extras', labels: ['Другие дополнения'] },
      { id: 'other', labels: ['Другой стол'] },
    ];
    expect(pick('другой', change)).toEqual({ kind: 'ambiguous', ids: ['day', 'other'] });
  });
  it('tooClose: what botflow check warns about', () => {
    expect(tooClose('Cake', 'cake!')).toBe('same');
    expect(tooClose('Включить', 'Выключить')).toBe('close');
    expect(tooClose('Turn on', 'Turn off')).toBeUndefined();
    expect(tooClose('Edit name', 'Edit age')).toBeUndefined();
  });
});
