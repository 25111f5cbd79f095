/** A project held as texts by file name, checked as `botflow check` checks it: for the range and fix tests. */
import { compileSources } from '../../src/flows/load.ts';
import type { Problem, ProblemFix, Span } from '../../src/flows/problems.ts';
import { EMPTY_REGISTRY, type Registry } from '../../src/flows/registry.ts';
import { loadCatalog } from '../../src/flows/texts.ts';

export type Files = Record<string, string>;

/** The problems of the flows (`*.flow.yaml`) and catalogs (`locales/<locale>.ftl`) of `files`. */
export function checkFiles(files: Files, registry: Registry = EMPTY_REGISTRY): Problem[] {
  const sources = Object.entries(files)
    .filter(([file]) => file.endsWith('.flow.yaml'))
    .map(([file, source]) => ({ file, source }));
  const catalogs = new Map(
    Object.entries(files)
      .filter(([file]) => file.endsWith('.ftl'))
      .map(([file, source]) => {
        const locale = /([\w-]+)\.ftl$/.exec(file)![1]!;
        return [locale, loadCatalog(locale, file, source)] as const;
      }),
  );
  return compileSources(sources, registry, catalogs).problems;
}

/** The offset of 1-based `line`:`col` in `text`. */
function offsetOf(text: string, line: number, col: number): number {
  const lines = text.split('\n');
  let offset = 0;
  for (let l = 1; l < line; l++) offset += lines[l - 1]!.length + 1;
  return offset + col - 1;
}

/** The text a problem (or an edit) covers: from line:col to endLine:endCol. */
export function textOf(text: string, span: Span): string {
  return text.slice(offsetOf(text, span.line, span.col), offsetOf(text, span.endLine, span.endCol));
}

/** The files with the fix's edits made (the last edit of a file first, so the earlier offsets hold). */
export function applyFix(files: Files, fix: ProblemFix): Files {
  const out = { ...files };
  const edits = [...fix.edits].sort((a, b) => b.line - a.line || b.col - a.col);
  for (const e of edits) {
    const text = out[e.file];
    if (text === undefined) throw new Error(`the fix edits ${e.file}, which the project does not have`);
    out[e.file] =
      text.slice(0, offsetOf(text, e.line, e.col)) +
      e.newText +
      text.slice(offsetOf(text, e.endLine, e.endCol));
  }
  return out;
}

/** The span of a problem (the test fails on a problem without an end). */
export function spanOf(p: Problem): Span {
  if (p.endLine === undefined || p.endCol === undefined) throw new Error(`no end: ${JSON.stringify(p)}`);
  return { line: p.line, col: p.col, endLine: p.endLine, endCol: p.endCol };
}
