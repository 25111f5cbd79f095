/**
 * Typed answers, the common part: how a typed text is normalised before it is compared, and how far two
 * words may be apart and still count as one typo. Pure functions, no model, no clock.
 */

/** Lower case, Unicode NFKC, ё→е, punctuation and symbols to spaces, spaces collapsed. */
export function normalize(text: string): string {
  return text
    .replace(/№/g, ' ') // NFKC would make it "No"
    .normalize('NFKC')
    .toLowerCase()
    .replace(/ё/g, 'е')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Words around an answer that say nothing about which option it is ("the", "option", "вариант", "please"),
 * in every language botflow ships. They are dropped only around the answer, never inside a label.
 */
const FILLERS = new Set([
  'the',
  'a',
  'an',
  'option',
  'choice',
  'number',
  'one',
  'please',
  'pls',
  'i',
  'want',
  'choose',
  'pick',
  'take',
  'id',
  'like',
  'вариант',
  'номер',
  'пункт',
  'пожалуйста',
  'давай',
  'давайте',
  'хочу',
  'выбираю',
  'беру',
]);

/** `normalize(text)` without filler words at its start and end ("the second one" → "second"). */
export function core(text: string): string {
  const words = normalize(text).split(' ').filter(Boolean);
  let start = 0;
  let end = words.length;
  // One word is kept whatever it is: "no" alone is an answer, not a filler.
  while (end - start > 1 && FILLERS.has(words[start]!)) start++;
  while (end - start > 1 && FILLERS.has(words[end - 1]!)) end--;
  return words.slice(start, end).join(' ');
}

/**
 * The Damerau-Levenshtein distance (optimal string alignment: insertions, deletions, substitutions and
 * swaps of two neighbours), by code point. Stops early and returns `max + 1` once the distance is above `max`.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  const s = [...a];
  const t = [...b];
  if (Math.abs(s.length - t.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[t.length]!;
}

/** The typos a word of this many characters may hold: none under 4, one for 4 to 7, two from 8. */
export function typoAllowance(length: number): number {
  if (length < 4) return 0;
  return length < 8 ? 1 : 2;
}

/** The language part of a locale: `ru` for `ru-RU`. */
export function languageOf(locale: string | undefined): string {
  return (locale ?? 'en').toLowerCase().split(/[-_]/)[0] || 'en';
}
