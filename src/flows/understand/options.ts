/**
 * A step's options as the matcher's candidates: the option's label in the person's locale and the flow's
 * default one (rendered by the caller), its `aliases:` for the person's language, and its id.
 */
import type { Aliases } from '../schema-parts.ts';
import {
  type MatchOptions,
  type MatchResult,
  matchPrepared,
  type PreparedCandidates,
  prepareCandidates,
} from './match.ts';
import { languageOf } from './text.ts';

/** The aliases that apply in `locales` (the person's, then the flow's default): a plain list applies in all. */
export function aliasesFor(aliases: Aliases | undefined, locales: readonly string[]): string[] {
  if (!aliases) return [];
  if (Array.isArray(aliases)) return [...aliases];
  const out: string[] = [];
  for (const locale of locales) {
    const exact = Object.entries(aliases).find(([k]) => k.toLowerCase() === locale.toLowerCase());
    const lang = Object.entries(aliases).find(
      ([k]) => languageOf(k) === languageOf(locale) && k.indexOf('-') < 0,
    );
    out.push(...(exact?.[1] ?? []), ...(lang && lang !== exact ? lang[1] : []));
  }
  return [...new Set(out)];
}

/** What reading a typed option needs: the labels of a flow text, and the locales looked at. */
export interface OptionReading extends MatchOptions {
  /** A flow text (literal or message id) as the person sees it, and in the flow's default locale. */
  labels?: (text: string) => string[];
  /** The person's locale, then the flow's default one. */
  locales: readonly string[];
}

/** Declared options (`options:` of an input, callback buttons of a menu) as candidates, read once. */
export function prepareDeclared(
  options: readonly { id: string; text: string; aliases?: Aliases | undefined }[],
  r: Pick<OptionReading, 'labels' | 'locales'>,
): PreparedCandidates {
  return prepareCandidates(
    options.map((o) => ({
      id: o.id,
      labels: r.labels ? r.labels(o.text) : [o.text],
      aliases: aliasesFor(o.aliases, r.locales),
    })),
  );
}

/** The choices of an `options_from` step as candidates, read once: their texts, ids by `idOf` (never names). */
export function prepareListed(
  choices: readonly { text: string }[],
  idOf: (index: number) => string,
): PreparedCandidates {
  return prepareCandidates(choices.map((c, i) => ({ id: idOf(i), labels: [c.text], idIsName: false })));
}

/** Reads a typed answer against declared options (`options:` of an input, callback buttons of a menu). */
export function matchDeclared(
  text: string,
  options: readonly { id: string; text: string; aliases?: Aliases | undefined }[],
  r: OptionReading,
): MatchResult {
  return matchPrepared(text, prepareDeclared(options, r), r);
}
