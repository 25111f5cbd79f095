/** The index of a Fluent catalog: its message ids, with the line and the text of each. */
import type { FileIndex, Occurrence } from './model.ts';
import { linesOf } from './text.ts';

export interface CatalogMessage {
  id: string;
  /** 0-based line of its `id =`. */
  line: number;
  /** Its text as written (continuation lines joined). */
  text: string;
  start: number;
  end: number;
}

export interface CatalogIndex extends FileIndex {
  locale: string;
  messages: Map<string, CatalogMessage>;
}

/** Indexes a catalog's text: each `id = …` entry (terms `-id` are skipped) and its continuation lines. */
export function indexCatalog(file: string, locale: string, text: string): CatalogIndex {
  const lines = linesOf(text);
  const messages = new Map<string, CatalogMessage>();
  const out: Occurrence[] = [];
  const rows = text.split('\n');
  let current: CatalogMessage | undefined;
  rows.forEach((row, i) => {
    const m = /^([A-Za-z][\w-]*)\s*=\s?(.*)$/.exec(row);
    if (m) {
      const start = lines.starts[i]!;
      current = { id: m[1]!, line: i, text: m[2]!.trim(), start, end: start + m[1]!.length };
      messages.set(current.id, current);
      out.push({ kind: 'message', name: current.id, start, end: current.end, def: true });
    } else if (current && /^\s+\S/.test(row)) current.text = `${current.text}\n${row.trim()}`.trim();
    else current = undefined;
  });
  return { file, lines, occurrences: out, locale, messages };
}
