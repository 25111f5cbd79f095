/** The outline: a flow and its steps (their kinds as detail), a transcript's transcripts and turns, a catalog's messages. */
import { type DocumentSymbol, SymbolKind } from 'vscode-languageserver-types';
import type { Indexed } from './project-index.ts';
import { type Lines, rangeOf } from './text.ts';

const symbol = (
  lines: Lines,
  name: string,
  kind: SymbolKind,
  from: number,
  to: number,
  select: [number, number] = [from, to],
  detail?: string,
  children?: DocumentSymbol[],
): DocumentSymbol => ({
  name: name || '(unnamed)',
  kind,
  range: rangeOf(lines, from, Math.max(to, select[1])),
  selectionRange: rangeOf(lines, select[0], select[1]),
  ...(detail ? { detail } : {}),
  ...(children ? { children } : {}),
});

export function symbolsOf(f: Indexed): DocumentSymbol[] {
  const { lines } = f.index;
  if (f.type === 'catalog')
    return [...f.index.messages.values()].map((m) =>
      symbol(lines, m.id, SymbolKind.String, m.start, m.end, undefined, m.text.split('\n')[0]),
    );
  if (f.type === 'transcript')
    return f.index.docs.map((d) =>
      symbol(
        lines,
        d.name ?? d.flow ?? 'transcript',
        SymbolKind.Module,
        d.start,
        d.end,
        [d.start, d.start],
        d.flow,
        d.turns.map((t) => symbol(lines, t.label, SymbolKind.Event, t.start, t.end)),
      ),
    );
  const steps = [...f.index.steps.values()].map((s) =>
    symbol(lines, s.id, SymbolKind.Function, s.start, s.blockEnd, [s.start, s.end], s.type),
  );
  const def = f.index.occurrences.find((o) => o.kind === 'flow' && o.def);
  const end = lines.text.length;
  return [
    symbol(
      lines,
      f.index.flowId ?? 'flow',
      SymbolKind.Module,
      0,
      end,
      def ? [def.start, def.end] : [0, 0],
      'flow',
      steps,
    ),
  ];
}
