/**
 * A kind of step of the project's own (flows/rate_us.flow.yaml): `type: rating` asks for a rating from 1
 * to 5 (or `max`), as buttons or typed: "4", "4/5", "four", "четыре", "★★★★". Pure: it reads the step's
 * fields and the text, and says where to go and what to save (docs/flows.md, "Your own step kinds").
 */
import { z } from 'zod';
import { defineStepKind } from '../../src/flows/registry.ts';

/** Numbers as words, in the languages the example speaks (lower case). */
const WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  один: 1,
  одна: 1,
  единица: 1,
  два: 2,
  две: 2,
  двойка: 2,
  три: 3,
  тройка: 3,
  четыре: 4,
  четвёрка: 4,
  четверка: 4,
  пять: 5,
  пятёрка: 5,
  пятерка: 5,
  шесть: 6,
  семь: 7,
  восемь: 8,
  девять: 9,
  десять: 10,
};

/** The refusal, when the step gives no `error:` of its own. */
const REFUSAL: Readonly<Record<string, (max: number) => string>> = {
  en: (max) => `Please rate from 1 to ${max}: press a button, or send a number like 4.`,
  ru: (max) => `Оцените от 1 до ${max}: нажмите кнопку или отправьте число, например 4.`,
};

/** The rating a typed text gives: a number ("4", "4/5", "4 stars"), a word, or stars; else undefined. */
export function readRating(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  const stars = /^[★⭐]+$/u.exec(t);
  if (stars) return [...t].length;
  const number = /^(\d{1,2})(?:\s*(?:\/\s*\d{1,2}|stars?|★|⭐|звезд[аы]?|из\s*\d{1,2}))?[.!]?$/u.exec(t);
  if (number) return Number(number[1]);
  return WORDS[t.replace(/[.!]$/, '')];
}

export const rating = defineStepKind({
  type: 'rating',
  summary: 'Asks for a rating from 1 to 5 (or max): buttons, or typed "4", "four", "четыре", "★★★★"',
  version: 1,
  fields: z.object({
    question: z.string().min(1).describe('The question: a text with {{variables}}, or a message id (i18n)'),
    save: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'a variable name: letters, digits and _')
      .describe('The variable that receives the rating (a whole number)'),
    max: z.number().int().min(2).max(10).optional().describe('The highest rating (default 5)'),
    error: z
      .string()
      .min(1)
      .optional()
      .describe('Said when the answer is no rating (default: a built-in text)'),
  }),
  exits: { next: 'The step after the rating' },
  texts: ['question', 'error'],
  sets: (step) => ({
    [step.save]: z
      .number()
      .int()
      .min(1)
      .max(step.max ?? 5),
  }),
  show: (step, { text }) => ({
    text: text(step.question),
    buttons: [Array.from({ length: step.max ?? 5 }, (_, i) => ({ id: `rate_${i + 1}`, text: `${i + 1}` }))],
  }),
  onPress: (step, id) => {
    const n = Number(/^rate_(\d+)$/.exec(id)?.[1]);
    return n >= 1 && n <= (step.max ?? 5) ? { goto: 'next', set: { [step.save]: n } } : undefined;
  },
  onMessage: (step, typed, { locale, text }) => {
    const max = step.max ?? 5;
    const n = readRating(typed);
    if (n !== undefined && n >= 1 && n <= max) return { goto: 'next', set: { [step.save]: n } };
    const refusal = REFUSAL[locale.slice(0, 2)] ?? REFUSAL.en!;
    return { refuse: step.error ? text(step.error) : refusal(max) };
  },
});

export default { kinds: [rating] };
