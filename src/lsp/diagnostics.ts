/**
 * The checker's problems as an editor shows them: a Diagnostic (0-based range, severity, code, source
 * `botflow`, the hint after the message) and its fixes as quick-fix code actions.
 */
import { pathToFileURL } from 'node:url';
import {
  type CodeAction,
  CodeActionKind,
  type Diagnostic,
  DiagnosticSeverity,
  type Range,
  type TextEdit,
} from 'vscode-languageserver-types';
import type { Problem, ProblemFix } from '../flows/problems.ts';

const SEVERITY = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  note: DiagnosticSeverity.Information,
} as const;

/** One problem of a file whose text is `text` as a diagnostic. */
export function toDiagnostic(p: Problem, text: string | undefined): Diagnostic {
  return {
    range: problemRange(p, text),
    severity: SEVERITY[p.severity],
    ...(p.code ? { code: p.code } : {}),
    source: 'botflow',
    message: p.hint ? `${p.message}\n${p.hint}` : p.message,
  };
}

/** From line:col to endLine:endCol; without an end, the word at line:col (or the rest of its line). */
export function problemRange(p: Problem, text: string | undefined): Range {
  const start = { line: p.line - 1, character: p.col - 1 };
  if (p.endLine !== undefined && p.endCol !== undefined)
    return { start, end: { line: p.endLine - 1, character: p.endCol - 1 } };
  const line = text?.split('\n')[p.line - 1]?.replace(/\r$/, '') ?? '';
  const word = /^[\w.$-]+/.exec(line.slice(start.character))?.[0];
  const length = word ? word.length : Math.max(line.length - start.character, 0);
  return { start, end: { line: start.line, character: start.character + length } };
}

/** The quick fixes of a problem shown as `diagnostic`. */
export function quickFixes(p: Problem, diagnostic: Diagnostic): CodeAction[] {
  return (p.fixes ?? []).map((fix, i) => ({
    title: fix.title,
    kind: CodeActionKind.QuickFix,
    diagnostics: [diagnostic],
    ...(i === 0 && p.fixes?.length === 1 ? { isPreferred: true } : {}),
    edit: { changes: fixChanges(fix) },
  }));
}

function fixChanges(fix: ProblemFix): Record<string, TextEdit[]> {
  const changes: Record<string, TextEdit[]> = {};
  for (const e of fix.edits) {
    const uri = pathToFileURL(e.file).href;
    const edits = changes[uri] ?? [];
    changes[uri] = edits;
    edits.push({
      range: {
        start: { line: e.line - 1, character: e.col - 1 },
        end: { line: e.endLine - 1, character: e.endCol - 1 },
      },
      newText: e.newText,
    });
  }
  return changes;
}

/** True when a diagnostic the client sends back is the one made of `p` (same place, same message). */
export function sameDiagnostic(a: Diagnostic, b: Diagnostic): boolean {
  return (
    a.message === b.message &&
    a.range.start.line === b.range.start.line &&
    a.range.start.character === b.range.start.character &&
    a.range.end.line === b.range.end.line &&
    a.range.end.character === b.range.end.character
  );
}
