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
 * swaps of two neighbours), by code point (texts, or their code points already split). Returns `max + 1`
 * for any distance above `max`, and stops as soon as it knows: only the cells within `max` of the diagonal
 * are worked out (a cell further away is already more than `max` apart), and a row above `max` ends it.
 */
export function editDistance(
  a: string | readonly string[],
  b: string | readonly string[],
  max = Number.POSITIVE_INFINITY,
): number {
  // Code points: a string is split, an array of them (a name read once, match.ts) is used as it is.
  const s = typeof a === 'string' ? [...a] : a;
  const t = typeof b === 'string' ? [...b] : b;
  const n = s.length;
  const m = t.length;
  if (Math.abs(n - m) > max) return max + 1;
  const band = Math.min(Math.max(n, m), max);
  const far = Math.min(max + 1, n + m + 1); // any cell outside the band
  // Three rows of scratch, reused from call to call (the function never waits, so nothing else uses them).
  if (rows[0]!.length < m + 1) rows = [0, 1, 2].map(() => new Float64Array(2 * (m + 1)));
  let [prev2, prev, row] = rows as [Float64Array, Float64Array, Float64Array];
  for (let j = 0; j <= m; j++) prev[j] = j <= band ? j : far;
  for (let i = 1; i <= n; i++) {
    const lo = Math.max(1, i - band);
    const hi = Math.min(m, i + band);
    row[0] = i <= band ? i : far;
    if (lo > 1) row[lo - 1] = far;
    let best = lo > 1 ? far : row[0]!;
    for (let j = lo; j <= hi; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        d = Math.min(d, prev2[j - 2]! + 1);
      row[j] = d;
      if (d < best) best = d;
    }
    if (hi < m) row[hi + 1] = far;
    if (best > max) return max + 1;
    [prev2, prev, row] = [prev, row, prev2];
  }
  return prev[m]! > max ? max + 1 : prev[m]!;
}
let rows = [0, 1, 2].map(() => new Float64Array(64));

/** The typos a word of this many characters may hold: none under 4, one for 4 to 7, two from 8. */
export function typoAllowance(length: number): number {
  if (length < 4) return 0;
  return length < 8 ? 1 : 2;
}

/** The language part of a locale: `ru` for `ru-RU`. */
export function languageOf(locale: string | undefined): string {
  return (locale ?? 'en').toLowerCase().split(/[-_]/)[0] || 'en';
}
