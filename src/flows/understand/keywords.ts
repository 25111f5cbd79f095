/**
 * The built-in intent classifier: keywords and patterns, no service, no model. A text is normalised like a
 * typed answer (text.ts); each intent's keywords (words, phrases, or /regex/ with named groups as slots) are
 * looked for in it. A keyword found as written scores 1, a longer form of it ("booking" for "book",
 * "забронирую" for "забронировать") 0.8, a typo 0.5; two intents found equally well are unclear (half the
 * score). Pure and deterministic.
 */
import { compileFlowRegex, MAX_REGEX_INPUT } from '../safe-regex.ts';
import type { ClassifierResult } from '../schema-intents.ts';
import { editDistance, languageOf, normalize, typoAllowance } from './text.ts';

/** Keywords of each intent: one list, or one list per language (`en`, `ru`). */
export type KeywordTable = Readonly<
  Record<string, readonly string[] | Readonly<Record<string, readonly string[]>>>
>;

const EXACT = 1;
const STEM = 0.8;
const TYPO = 0.5;

/** How well one typed word stands for one keyword word: 1, 0.8 (a longer form), 0.5 (a typo) or 0. */
function wordScore(typed: string, keyword: string): number {
  if (typed === keyword) return EXACT;
  const k = [...keyword];
  const t = [...typed];
  let common = 0;
  while (common < k.length && common < t.length && k[common] === t[common]) common++;
  // A shared beginning of at least 4 letters and most of the keyword: another form of the same word.
  if (common >= Math.max(4, Math.ceil(k.length * 0.6)) && (common === k.length || t.length > 4)) return STEM;
  const allowed = typoAllowance(k.length);
  return allowed > 0 && editDistance(typed, keyword, allowed) <= allowed ? TYPO : 0;
}

/** The best score of a keyword (its words in order, side by side) in the typed words. */
function phraseScore(words: readonly string[], keyword: string): number {
  const parts = normalize(keyword).split(' ').filter(Boolean);
  if (!parts.length) return 0;
  let best = 0;
  for (let i = 0; i + parts.length <= words.length; i++) {
    let score = EXACT;
    for (let j = 0; j < parts.length && score > 0; j++)
      score = Math.min(score, wordScore(words[i + j]!, parts[j]!));
    best = Math.max(best, score);
  }
  return best;
}

const REGEX = /^\/(.+)\/([a-z]*)$/s;
const patterns = new Map<string, RegExp | null>();
/** A keyword written /regex/flags, compiled once (case-insensitive; unsafe ones never run: `botflow check`). */
function patternOf(keyword: string): RegExp | null | undefined {
  const rx = REGEX.exec(keyword);
  if (!rx) return undefined;
  if (!patterns.has(keyword)) {
    const c = compileFlowRegex(rx[1]!, rx[2]!.includes('i') ? rx[2]! : `${rx[2]}i`);
    patterns.set(keyword, 'regex' in c ? c.regex : null);
  }
  return patterns.get(keyword);
}

/** The keywords of an intent for a locale: its own language's, else every list it has. */
export function keywordsFor(table: KeywordTable, intent: string, locale: string): readonly string[] {
  const k = table[intent];
  if (!k) return [];
  if (Array.isArray(k)) return k;
  const byLang = k as Readonly<Record<string, readonly string[]>>;
  const lang = languageOf(locale);
  return byLang[locale] ?? byLang[lang] ?? Object.values(byLang).flat();
}

/** Classifies `text` among `intents` with the keyword table (see the file's comment). */
export function classifyKeywords(
  text: string,
  locale: string,
  intents: readonly string[],
  table: KeywordTable,
): ClassifierResult {
  const words = normalize(text).split(' ').filter(Boolean);
  const scored: { intent: string; score: number; slots?: Record<string, string> }[] = [];
  for (const intent of intents) {
    let best = 0;
    let slots: Record<string, string> | undefined;
    for (const keyword of keywordsFor(table, intent, locale)) {
      const rx = patternOf(keyword);
      if (rx !== undefined) {
        const m = rx?.exec(text.slice(0, MAX_REGEX_INPUT));
        if (m && best < EXACT) {
          best = EXACT;
          slots = m.groups
            ? Object.fromEntries(Object.entries(m.groups).filter(([, v]) => v !== undefined))
            : undefined;
        }
        continue;
      }
      best = Math.max(best, phraseScore(words, keyword));
    }
    if (best > 0) scored.push({ intent, score: best, ...(slots ? { slots } : {}) });
  }
  if (!scored.length) return { intent: null, confidence: 0 };
  scored.sort((a, b) => b.score - a.score);
  const [top, second] = scored;
  // Two intents found equally well: the text says both, so neither is sure.
  const confidence = second && second.score === top!.score ? top!.score / 2 : top!.score;
  return { intent: top!.intent, confidence, ...(top!.slots ? { slots: top!.slots } : {}) };
}

/**
 * The slots an intent always reads when the keyword classifier finds it: the named groups every one of its
 * keywords has (all of them patterns), in every language. Used by `botflow check` for `save_slots`.
 */
export function slotsOf(table: KeywordTable, intent: string): string[] {
  const k = table[intent];
  if (!k) return [];
  const lists = Array.isArray(k) ? [k] : Object.values(k as Readonly<Record<string, readonly string[]>>);
  const all = lists.flat();
  const groups = all.map((word) => {
    const rx = REGEX.exec(word);
    return new Set(rx ? [...rx[1]!.matchAll(/\(\?<([A-Za-z_]\w*)>/g)].map((m) => m[1]!) : []);
  });
  const [first, ...rest] = groups;
  return first ? [...first].filter((g) => rest.every((s) => s.has(g))) : [];
}
