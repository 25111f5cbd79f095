import type { ProblemCode } from './problem-codes.ts';

export type { ProblemCode } from './problem-codes.ts';

/** A problem found in a flow file or a locale catalog, pointing at the exact place to fix. */
export interface Problem {
  file: string;
  /** 1-based line and column. */
  line: number;
  col: number;
  /** Where the faulty text ends (1-based, exclusive): an editor underlines from line:col to here. */
  endLine?: number;
  endCol?: number;
  /** A stable name of the kind of problem (`unknown-step`), the same in every release: for editors and filters. */
  code: ProblemCode;
  /** A note explains what check could not check; it never fails a check. */
  severity: 'error' | 'warning' | 'note';
  message: string;
  /** What to do about it. */
  hint?: string;
  /** Ways to fix it as edits of the files (the did-you-mean cases): an editor offers them as quick fixes. */
  fixes?: ProblemFix[];
}

/** One way to fix a problem: a title to offer, and the edits that make it. */
export interface ProblemFix {
  title: string;
  edits: TextEdit[];
}

/** Replace the text from line:col to endLine:endCol (1-based, end exclusive) of `file` with `newText`. */
export interface TextEdit {
  file: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
  newText: string;
}

/** `file:line:col: severity: message (hint)`: the format editors and CI logs understand. */
export function formatProblem(p: Problem): string {
  const hint = p.hint ? `\n    hint: ${p.hint}` : '';
  return `${p.file}:${p.line}:${p.col}: ${p.severity}: ${p.message}${hint}`;
}

/** True when any problem is an error (warnings alone do not fail a check). */
export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}

/** The closest candidate to `name` (for "did you mean" hints), or undefined when nothing is close. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const c of candidates) {
    // A candidate that merely extends the name (sav → save) beats an equally distant one (say).
    const d = editDistance(name, c) - (c.startsWith(name) || name.startsWith(c) ? 0.5 : 0);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/** Where a value is in a flow file: keys and list indexes from the top. */
export type Path = readonly (string | number)[];

/** Where a piece of text is in a file: 1-based, the end exclusive. */
export interface Span {
  line: number;
  col: number;
  endLine: number;
  endCol: number;
}

/** Finds where a value (or its key, with `key: true`) starts and ends in a parsed document. */
export interface Locator {
  at(path: Path, key?: boolean): Span;
}

/** Line `line` of `text` (1-based) as a span, from its first to its last character that is not blank. */
export function lineSpan(text: string | undefined, line: number): Span {
  const content = text?.split('\n')[line - 1]?.trimEnd() ?? '';
  const col = content.length - content.trimStart().length + 1;
  return { line, col, endLine: line, endCol: Math.max(col, content.length + 1) };
}

/** A did-you-mean as a fix: replace the faulty text at `span` of `file` with `text`. */
export function changeTo(file: string, span: Span, text: string, title = `Change to "${text}"`): ProblemFix {
  const { line, col, endLine, endCol } = span;
  return { title, edits: [{ file, line, col, endLine, endCol, newText: text }] };
}

/** The span of `needle` found in `span` of `text` (the file's text), or undefined when it is not there. */
export function spanWithin(text: string, span: Span, needle: string): Span | undefined {
  const lines = text.split('\n');
  for (let l = span.line; l <= Math.min(span.endLine, lines.length); l++) {
    const from = l === span.line ? span.col - 1 : 0;
    const upto = l === span.endLine ? span.endCol - 1 : lines[l - 1]!.length;
    const found = lines[l - 1]!.slice(0, upto).indexOf(needle, from);
    if (found >= 0) return { line: l, col: found + 1, endLine: l, endCol: found + 1 + needle.length };
  }
  return undefined;
}
