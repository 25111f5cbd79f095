/**
 * The words typed answers are read with, per language botflow ships (en, ru): positions in a list
 * ("second", "второй", "2-й", "last") and yes and no. Words of every language are understood whatever the
 * person's locale: they do not collide, and people mix languages.
 */
import { normalize } from './text.ts';

/** Ordinals by position (1-based), each with the forms a person types. */
const ORDINALS: Record<number, string[]> = {
  1: ['first', '1st', 'one', 'первый', 'первая', 'первое', 'первую', 'один', 'одна', 'раз'],
  2: ['second', '2nd', 'two', 'второй', 'вторая', 'второе', 'вторую', 'два', 'две'],
  3: ['third', '3rd', 'three', 'третий', 'третья', 'третье', 'третью', 'три'],
  4: ['fourth', '4th', 'four', 'четвертый', 'четвертая', 'четвертое', 'четвертую', 'четыре'],
  5: ['fifth', '5th', 'five', 'пятый', 'пятая', 'пятое', 'пятую', 'пять'],
  6: ['sixth', '6th', 'six', 'шестой', 'шестая', 'шестое', 'шестую', 'шесть'],
  7: ['seventh', '7th', 'seven', 'седьмой', 'седьмая', 'седьмое', 'седьмую', 'семь'],
  8: ['eighth', '8th', 'eight', 'восьмой', 'восьмая', 'восьмое', 'восьмую', 'восемь'],
  9: ['ninth', '9th', 'nine', 'девятый', 'девятая', 'девятое', 'девятую', 'девять'],
  10: ['tenth', '10th', 'ten', 'десятый', 'десятая', 'десятое', 'десятую', 'десять'],
};
const LAST = new Set(['last', 'последний', 'последняя', 'последнее', 'последнюю']);
const ORDINAL_OF = new Map(Object.entries(ORDINALS).flatMap(([n, ws]) => ws.map((w) => [w, Number(n)])));

/**
 * The 0-based position a typed answer names in a list of `count`, if it names one: "2", "#2", "2.", "2-й",
 * "second", "the second one", "второй", "вторая", "last", "последний". Out of the list: undefined.
 * `text` is the answer's core (normalised, fillers dropped; "#2" arrives as "2").
 */
export function positionOf(text: string, count: number): number | undefined {
  let n: number | undefined;
  // "2", "2 й", "2nd", "2 я" ("2-я" normalised): digits with an ordinal ending.
  const digits = /^(\d{1,3})(?: ?(?:й|я|е|ю|ой|ая|ое|st|nd|rd|th))?$/.exec(text);
  if (digits) n = Number(digits[1]);
  else if (LAST.has(text)) n = count;
  else n = ORDINAL_OF.get(text);
  return n !== undefined && n >= 1 && n <= count ? n - 1 : undefined;
}

const YES = [
  'yes',
  'y',
  'yeah',
  'yep',
  'yup',
  'sure',
  'ok',
  'okay',
  'of course',
  'right',
  'correct',
  'true',
  'да',
  'ага',
  'угу',
  'конечно',
  'верно',
  'хорошо',
  'ок',
  'окей',
  'давай',
  'да конечно',
  'да да',
];
const NO = [
  'no',
  'n',
  'nope',
  'nah',
  'not',
  'no thanks',
  'no thank you',
  'false',
  'нет',
  'неа',
  'не',
  'нет спасибо',
  'не надо',
  'не хочу',
];
const YES_SET = new Set(YES.map(normalize));
const NO_SET = new Set(NO.map(normalize));

/** Whether an option's label or id means yes or no: all of it, or its first part ("Yes, book it", "Да, конечно"). */
export function optionYesNo(text: string): 'yes' | 'no' | undefined {
  return yesNoOf(text) ?? yesNoOf(text.split(/[,.!;:—–(]/)[0] ?? '');
}

/** Whether a text (a typed answer, an option's id or label) says yes or no, in any shipped language. */
export function yesNoOf(text: string): 'yes' | 'no' | undefined {
  const t = normalize(text);
  if (YES_SET.has(t)) return 'yes';
  if (NO_SET.has(t)) return 'no';
  return undefined;
}
