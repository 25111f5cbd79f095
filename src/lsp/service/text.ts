/** Offsets and LSP positions in a text (0-based line, UTF-16 character), and the word at an offset. */
import type { Position, Range } from 'vscode-languageserver-types';

/** A text with its line starts, to turn offsets into positions and back. */
export interface Lines {
  readonly text: string;
  readonly starts: readonly number[];
}

export function linesOf(text: string): Lines {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return { text, starts };
}

export function positionAt(l: Lines, offset: number): Position {
  let lo = 0;
  let hi = l.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (l.starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - l.starts[lo]! };
}

export function offsetAt(l: Lines, p: Position): number {
  const start = l.starts[Math.min(p.line, l.starts.length - 1)] ?? 0;
  const end = l.starts[p.line + 1] ?? l.text.length + 1;
  return Math.min(start + p.character, end - 1, l.text.length);
}

export function rangeOf(l: Lines, start: number, end: number): Range {
  return { start: positionAt(l, start), end: positionAt(l, end) };
}

/** The line an offset is on, and the offset's place in it. */
export function lineAround(l: Lines, offset: number): { line: string; col: number; start: number } {
  const p = positionAt(l, offset);
  const start = l.starts[p.line]!;
  const end = l.starts[p.line + 1] ?? l.text.length + 1;
  return { line: l.text.slice(start, end - 1).replace(/\r$/, ''), col: p.character, start };
}
