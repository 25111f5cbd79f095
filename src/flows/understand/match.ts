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

function namesOf(c: Candidate): string[] {
  const names = [...c.labels, ...(c.aliases ?? []), ...(c.idIsName === false ? [] : [c.id])];
  return [...new Set(names.map(core).filter(Boolean))];
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
  const typed = core(text);
  if (!typed) return NONE;
  const names = candidates.map((c) => ({ id: c.id, names: namesOf(c) }));
  const exact = decide(
    names.filter((c) => c.names.includes(typed)).map((c) => c.id),
    'exact',
  );
  if (exact) return exact;
  const at = opts.numbersAreValues && /^\d/.test(typed) ? undefined : positionOf(typed, candidates.length);
  if (at !== undefined) return { kind: 'match', id: candidates[at]!.id, by: 'position' };
  const said = yesNoOf(text);
  if (said) {
    const same = candidates.filter((c) =>
      [c.id, ...c.labels, ...(c.aliases ?? [])].some((n) => optionYesNo(n) === said),
    );
    const found = decide(
      same.map((c) => c.id),
      'yes_no',
    );
    if (found) return found;
  }
  const close = names.filter((c) => c.names.some((n) => withinTypo(typed, n))).map((c) => c.id);
  const typo = decide(close, 'typo');
  if (typo) return typo;
  const words = typed.split(' ');
  if (typed.replace(/ /g, '').length < 3) return NONE;
  const containing = names
    .filter((c) => c.names.some((n) => words.every((w) => n.split(' ').includes(w))))
    .map((c) => c.id);
  return decide(containing, 'words') ?? NONE;
}

/**
 * True when `a` and `b` (both normalised) are one typo apart. Texts of several words are compared word by
 * word, each pair within its own allowance ("edit nme" is "edit name", never "edit age"); otherwise the
 * whole texts, with the allowance of the shorter ("windowseat" is "window seat").
 */
export function withinTypo(a: string, b: string): boolean {
  const wa = a.split(' ');
  const wb = b.split(' ');
  if (wa.length > 1 && wa.length === wb.length) {
    let total = 0;
    for (let i = 0; i < wa.length; i++) {
      const allowed = typoAllowance(Math.max([...wa[i]!].length, [...wb[i]!].length));
      const d = editDistance(wa[i]!, wb[i]!, allowed);
      if (d > allowed) return false;
      total += d;
    }
    return total > 0 && total <= typoAllowance(Math.min([...a].length, [...b].length));
  }
  const allowed = typoAllowance(Math.min([...a].length, [...b].length));
  return allowed > 0 && editDistance(a, b, allowed) <= allowed;
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
