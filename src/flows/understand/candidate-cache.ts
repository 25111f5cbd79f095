/**
 * Prepared candidates kept for the next answers: a step's declared options per compiled flow (a flow
 * version), step and locales, and the choices of an `options_from` list by the hash of their texts. Bounded
 * by entries and by names in all; the least recently used go first.
 */
import { createHash } from 'node:crypto';

/** Entries kept at most. */
export const CANDIDATE_CACHE_ENTRIES = 1_000;
/** Names (labels and aliases, after normalisation) kept at most, over all entries: ~250 lists of 200. */
export const CANDIDATE_CACHE_NAMES = 50_000;

/** A bounded cache of prepared candidates, each counted by its `size` (least recently used out first). */
export class CandidateCache<T extends { readonly size: number }> {
  private readonly entries = new Map<string, T>();
  private names = 0;

  constructor(
    readonly maxEntries = CANDIDATE_CACHE_ENTRIES,
    readonly maxNames = CANDIDATE_CACHE_NAMES,
  ) {}

  /** The candidates kept under `key`, else `build()`'s, kept (unless larger than the whole bound). */
  get(key: string, build: () => T): T {
    const kept = this.entries.get(key);
    if (kept) {
      // Most recently used last: Map keeps the order of insertion.
      this.entries.delete(key);
      this.entries.set(key, kept);
      return kept;
    }
    const made = build();
    if (made.size > this.maxNames) return made;
    this.entries.set(key, made);
    this.names += made.size;
    for (const [k, v] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.names <= this.maxNames) break;
      this.entries.delete(k);
      this.names -= v.size;
    }
    return made;
  }

  /** How many entries and names are kept. */
  get stats(): { entries: number; names: number } {
    return { entries: this.entries.size, names: this.names };
  }
}

/**
 * The identity of a list's texts, in order: a SHA-256 of them, each with its length (no two lists meet by
 * the way they are cut). Computed once per list a loaded conversation holds (~15 µs of CPU for 200 short
 * texts, less than a hash written in JavaScript); whoever keeps candidates under it compares the texts too.
 */
export function textsHash(texts: readonly string[]): string {
  return createHash('sha256')
    .update(texts.map((t) => `${t.length}:${t}`).join(''))
    .digest('base64url');
}
