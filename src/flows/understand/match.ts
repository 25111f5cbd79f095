/**
 * Which option a typed answer names, without any model: the rules run in order and the first that
 * decides wins.
 *
 * 1. exact: the answer equals an option's id, label (in the person's locale or the flow's default one) or
 *    alias, after normalisation (case, NFKC, ё→е, punctuation, words like "the", "option", "вариант");
 * 2. position: "2", "#2", "second", "the second one", "второй", "2-й", "last";
 * 3. yes / no: "yes", "yep", "да", "нет"… pick the one option that means yes (or no);
 * 4. typo: the one option whose label or alias is within the typo allowance (Damerau-Levenshtein: none under
 *    4 characters, 1 for 4–7, 2 from 8);
 * 5. words: the answer's words are some of the words of one option's label or alias ("20:30" for
 *    "20:30 (4 seats)", "chair" for "High chair"; at least 3 letters or digits in all).
 *
 * Two options that fit the same rule (equal labels, or two labels within a typo) are never guessed between:
 * the answer is `ambiguous`, and the flow asks which one was meant.
 */

import { core, editDistance, normalize, typoAllowance } from './text.ts';
import { optionYesNo, positionOf, yesNoOf } from './words.ts';

/** One option as the matcher sees it: what is saved, and every text that names it. */
export interface Candidate {
  id: string;
  /** Its labels as shown (one per locale looked at). */
  labels: readonly string[];
  /** Other words that name it (`aliases:` in the flow file), for the person's locale. */
  aliases?: readonly string[];
  /** Whether its id counts as a name (not for `options_from` choices, whose ids are `#n`). */
  idIsName?: boolean;
}

/** How the matcher reads. */
export interface MatchOptions {
  /**
   * The step also takes a number (`input: [choice, integer]`): "3" is that number, never the third option
   * (positions in words, "third", still count).
   */
  numbersAreValues?: boolean;
}

/** How an answer was read: the option, the options it could mean, or nothing. */
export type MatchResult =
  | { kind: 'match'; id: string; by: Rule }
  | { kind: 'ambiguous'; ids: string[] }
  | { kind: 'none' };

type Rule = 'exact' | 'position' | 'yes_no' | 'typo' | 'words';
const NONE: MatchResult = { kind: 'none' };

/**
 * A text's code points, each with a bit standing for it (its code modulo 31), and those bits together: a
 * code point whose bit the other text lacks is not in it, so that position costs an edit at least.
 */
interface Letters {
  chars: readonly string[];
  bits: readonly number[];
  mask: number;
}
/** A normalised text read once: its letters, and its words with theirs (for the typo rule). */
interface Spelled extends Letters {
  words: readonly string[];
  wordLetters: readonly Letters[];
}
/** A candidate's name read once: spelled, and its words as a set (the words rule). */
interface Name extends Spelled {
  wordSet: ReadonlySet<string>;
}

function lettersOf(text: string): Letters {
  const chars = [...text];
  const bits = chars.map((c) => 1 << (c.codePointAt(0)! % 31));
  return { chars, bits, mask: bits.reduce((m, b) => m | b, 0) };
}

function spell(text: string): Spelled {
  const words = text.split(' ');
  return { ...lettersOf(text), words, wordLetters: words.map(lettersOf) };
}

/** True when more than `limit` code points of `a` are missing from `b`: more than `limit` edits apart. */
function missing(a: Letters, b: Letters, limit: number): boolean {
  let out = 0;
  for (const bit of a.bits) if ((bit & b.mask) === 0 && ++out > limit) return true;
  return false;
}

/** The edit distance of two texts' letters up to `max` (`max + 1` above it), the cheap bound first. */
function distanceWithin(a: Letters, b: Letters, max: number): number {
  if (Math.abs(a.chars.length - b.chars.length) > max) return max + 1;
  if (missing(a, b, max) || missing(b, a, max)) return max + 1;
  return editDistance(a.chars, b.chars, max);
}

/**
 * The candidates of a step read once (`prepareCandidates`), so that each answer only compares: every
 * name normalised and spelled, an index of the names for the exact rule, the options that mean yes or no.
 * Pure data of the candidates: the same candidates always prepare the same way (typed-answers.ts keeps them).
 */
export interface PreparedCandidates {
  /** The ids in the order positions count. */
  readonly ids: readonly string[];
  /** Each candidate's id and distinct names. */
  readonly named: readonly { id: string; names: readonly Name[] }[];
  /** A normalised name → the ids it names, in the candidates' order (rule 1). */
  readonly exact: ReadonlyMap<string, readonly string[]>;
  /** A word → the names holding it, with their option's id, in the candidates' order (rule 5). */
  readonly byWord: ReadonlyMap<string, readonly { id: string; name: Name }[]>;
  /** The ids of the options that mean yes, and of those that mean no (rule 3). */
  readonly yes: readonly string[];
  readonly no: readonly string[];
  /** How many names in all: what a cache of prepared candidates counts (typed-answers.ts). */
  readonly size: number;
}

function namesOf(c: Candidate): string[] {
  const names = [...c.labels, ...(c.aliases ?? []), ...(c.idIsName === false ? [] : [c.id])];
  return [...new Set(names.map(core).filter(Boolean))];
}

/** Reads the candidates once: what `matchPrepared` compares an answer with. */
export function prepareCandidates(candidates: readonly Candidate[]): PreparedCandidates {
  const exact = new Map<string, string[]>();
  const byWord = new Map<string, { id: string; name: Name }[]>();
  const yes: string[] = [];
  const no: string[] = [];
  let size = 0;
  const named = candidates.map((c) => {
    const names = namesOf(c).map((n) => {
      const ids = exact.get(n);
      if (ids) ids.push(c.id);
      else exact.set(n, [c.id]);
      const spelled = spell(n);
      const name = { ...spelled, wordSet: new Set(spelled.words) };
      for (const w of name.wordSet) {
        const holding = byWord.get(w);
        if (holding) holding.push({ id: c.id, name });
        else byWord.set(w, [{ id: c.id, name }]);
      }
      return name;
    });
    size += names.length;
    const said = [c.id, ...c.labels, ...(c.aliases ?? [])].map(optionYesNo);
    if (said.includes('yes')) yes.push(c.id);
    if (said.includes('no')) no.push(c.id);
    return { id: c.id, names };
  });
  const ids = candidates.map((c) => c.id);
  return { ids, named, exact, byWord, yes, no, size: Math.max(1, size) };
}

/** Decides between the candidates one rule found: one option is a match, more are ambiguous. */
function decide(ids: readonly string[], by: Rule): MatchResult | undefined {
  const distinct = [...new Set(ids)];
  if (distinct.length === 1) return { kind: 'match', id: distinct[0]!, by };
  return distinct.length > 1 ? { kind: 'ambiguous', ids: distinct } : undefined;
}

/** Reads a typed answer against the options of a step, in the order above. */
export function matchOption(
  text: string,
  candidates: readonly Candidate[],
  opts: MatchOptions = {},
): MatchResult {
  return matchPrepared(text, prepareCandidates(candidates), opts);
}

/** `matchOption` against candidates read once (`prepareCandidates`). */
export function matchPrepared(text: string, p: PreparedCandidates, opts: MatchOptions = {}): MatchResult {
  const typed = core(text);
  if (!typed) return NONE;
  const exact = decide(p.exact.get(typed) ?? [], 'exact');
  if (exact) return exact;
  const at = opts.numbersAreValues && /^\d/.test(typed) ? undefined : positionOf(typed, p.ids.length);
  if (at !== undefined) return { kind: 'match', id: p.ids[at]!, by: 'position' };
  const said = yesNoOf(text);
  if (said) {
    const found = decide(said === 'yes' ? p.yes : p.no, 'yes_no');
    if (found) return found;
  }
  const spelled = spell(typed);
  // One word under 4 letters is never a typo of anything (typoApart): skip the pass.
  const short = spelled.words.length === 1 && spelled.chars.length < 4;
  const close = short
    ? []
    : p.named.filter((c) => c.names.some((n) => typoApart(spelled, n))).map((c) => c.id);
  const typo = decide(close, 'typo');
  if (typo) return typo;
  if (typed.replace(/ /g, '').length < 3) return NONE;
  // The names holding the first word, then those holding every other one too.
  const [first, ...rest] = spelled.words;
  const containing = (p.byWord.get(first!) ?? [])
    .filter((h) => rest.every((w) => h.name.wordSet.has(w)))
    .map((h) => h.id);
  return decide(containing, 'words') ?? NONE;
}

/**
 * True when `a` and `b` (both normalised) are one typo apart. Texts of several words are compared word by
 * word, each pair within its own allowance ("edit nme" is "edit name", never "edit age"); otherwise the
 * whole texts, with the allowance of the shorter ("windowseat" is "window seat").
 */
export function withinTypo(a: string, b: string): boolean {
  return typoApart(spell(a), spell(b));
}

function typoApart(a: Spelled, b: Spelled): boolean {
  if (a.words.length > 1 && a.words.length === b.words.length) {
    let total = 0;
    for (let i = 0; i < a.words.length; i++) {
      const x = a.wordLetters[i]!;
      const y = b.wordLetters[i]!;
      const allowed = typoAllowance(Math.max(x.chars.length, y.chars.length));
      const d = distanceWithin(x, y, allowed);
      if (d > allowed) return false;
      total += d;
    }
    return total > 0 && total <= typoAllowance(Math.min(a.chars.length, b.chars.length));
  }
  const allowed = typoAllowance(Math.min(a.chars.length, b.chars.length));
  return allowed > 0 && distanceWithin(a, b, allowed) <= allowed;
}

/** Two names that cannot be told apart: equal after normalisation, or within one typo allowance. */
export function tooClose(a: string, b: string): 'same' | 'close' | undefined {
  const x = core(a);
  const y = core(b);
  if (!x || !y) return undefined;
  if (x === y) return 'same';
  return withinTypo(x, y) ? 'close' : undefined;
}

export { normalize };
