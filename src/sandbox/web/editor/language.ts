// What the editor asks the server as the text changes: the checker's diagnostics (as lint) and the
// language service's completion.
import type { CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import type { Action, Diagnostic as LintDiagnostic } from '@codemirror/lint';
import type { Text } from '@codemirror/state';
import type { EditorView } from '@codemirror/view';
import { type CompletionItem, type Diagnostic, editorServer } from './server.ts';

/** The offset of a 1-based line:col in `doc`, kept inside the document. */
function offsetOf(doc: Text, at: { line: number; col: number }): number {
  const line = doc.line(Math.min(Math.max(at.line, 1), doc.lines));
  return Math.min(line.from + Math.max(at.col - 1, 0), line.to);
}

const SEVERITY = { error: 'error', warning: 'warning', note: 'info' } as const;

/** The checker's problems as CodeMirror diagnostics. */
export function toLint(doc: Text, diagnostics: readonly Diagnostic[]): LintDiagnostic[] {
  return diagnostics.map((d) => {
    const from = offsetOf(doc, d.from);
    const to = Math.max(offsetOf(doc, d.to), from);
    return {
      from,
      to,
      severity: SEVERITY[d.severity],
      message: d.hint ? `${d.message}\nhint: ${d.hint}` : d.message,
      ...(d.code ? { source: d.code } : {}),
      ...(d.fixes?.length ? { actions: d.fixes.map((fix) => fixAction(doc, fix)) } : {}),
    };
  });
}

/** A quick fix as a button under the diagnostic: its edits, made on the text it was computed for. */
function fixAction(doc: Text, fix: NonNullable<Diagnostic['fixes']>[number]): Action {
  const changes = fix.edits.map((e) => ({
    from: offsetOf(doc, e.from),
    to: offsetOf(doc, e.to),
    insert: e.newText,
  }));
  return {
    name: fix.title,
    apply: (view) => {
      // The text changed since the check: the fix's places are stale; the next check offers it again.
      if (view.state.doc !== doc) return;
      view.dispatch({ changes });
    },
  };
}

/** The lint source: diagnostics of the editor's text as the file `path()`. */
export function flowLinter(path: () => string, onDiagnostics: (count: number) => void) {
  return async (view: EditorView): Promise<LintDiagnostic[]> => {
    const doc = view.state.doc;
    try {
      const found = toLint(doc, await editorServer.diagnostics(path(), doc.toString()));
      onDiagnostics(found.filter((d) => d.severity === 'error').length);
      return found;
    } catch {
      return []; // the server is restarting: the next change asks again
    }
  };
}

const KINDS: Record<number, string> = {
  3: 'function',
  5: 'property',
  6: 'variable',
  10: 'property',
  12: 'constant',
  13: 'enum',
  14: 'keyword',
  18: 'text',
  21: 'constant',
};

function documentationOf(item: CompletionItem): string | undefined {
  return typeof item.documentation === 'string' ? item.documentation : item.documentation?.value;
}

/**
 * The service's documentation (Markdown, as editors show it) as a small DOM: paragraphs, `> ` quotes, ```
 * fenced code, **bold** and `code`. Built with text nodes only: a flow's text never becomes markup.
 */
export function markdownNode(markdown: string): HTMLElement {
  const root = document.createElement('div');
  root.className = 'cm-doc';
  const blocks = markdown.split(/\n{2,}/);
  for (const block of blocks) {
    const fence = /^```\w*\n([\s\S]*?)\n?```$/.exec(block.trim());
    if (fence) {
      const pre = document.createElement('pre');
      pre.textContent = fence[1] ?? '';
      root.append(pre);
      continue;
    }
    const quote = block.split('\n').every((l) => l.startsWith('>'));
    const part = document.createElement(quote ? 'blockquote' : 'p');
    inline(part, quote ? block.replace(/^> ?/gm, '') : block);
    root.append(part);
  }
  return root;
}

/** **bold** and `code` spans of one block, as elements; the rest as text. */
function inline(into: HTMLElement, text: string): void {
  for (const piece of text.split(/(\*\*[^*]+\*\*|`[^`]+`)/)) {
    if (!piece) continue;
    const bold = /^\*\*([^*]+)\*\*$/.exec(piece);
    const code = /^`([^`]+)`$/.exec(piece);
    const el = bold ? document.createElement('b') : code ? document.createElement('code') : undefined;
    if (el) {
      el.textContent = (bold ?? code)![1]!;
      into.append(el);
    } else into.append(document.createTextNode(piece));
  }
}

/** The completion source: the language service's items at the cursor. */
export function flowCompletion(path: () => string) {
  return async (context: CompletionContext): Promise<CompletionResult | null> => {
    const word = context.matchBefore(/[\w.$-]*/);
    if (!context.explicit && (!word || word.from === word.to)) return null;
    const line = context.state.doc.lineAt(context.pos);
    let items: CompletionItem[];
    try {
      items = await editorServer.completion(
        path(),
        context.state.doc.toString(),
        line.number - 1,
        context.pos - line.from,
      );
    } catch {
      return null;
    }
    if (!items.length) return null;
    return {
      from: word?.from ?? context.pos,
      options: items.map((item) => {
        const info = documentationOf(item);
        return {
          label: item.label,
          apply: item.insertText ?? item.label,
          ...(item.kind && KINDS[item.kind] ? { type: KINDS[item.kind] } : {}),
          ...(item.detail ? { detail: item.detail } : {}),
          ...(info ? { info: () => markdownNode(info) } : {}),
        };
      }),
    };
  };
}
