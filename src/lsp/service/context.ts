/**
 * Where the cursor is in a YAML text, read from the text around it (a file being typed is often not valid
 * YAML yet): inside `{{…}}`, at a key (with the keys it is under, by indentation), or at the value of a key.
 */
import { type Lines, lineAround } from './text.ts';

export type CursorContext =
  | { at: 'template'; prefix: string; from: number }
  | { at: 'key'; path: string[]; prefix: string; from: number; siblings: Set<string> }
  | { at: 'value'; key: string; path: string[]; prefix: string; from: number; expression: boolean };

const KEY_LINE = /^(\s*)((?:- )*)([\w-]+)\s*:(?:\s|$)/;

/** The keys a line at `indent` is under, read upward by indentation (`- ` items count as indented). */
export function pathAbove(lines: Lines, line: number, indent: number): string[] {
  const path: string[] = [];
  let limit = indent;
  for (let i = line - 1; i >= 0 && limit > 0; i--) {
    const row = lines.text.slice(lines.starts[i]!, (lines.starts[i + 1] ?? lines.text.length + 1) - 1);
    if (!row.trim() || row.trimStart().startsWith('#')) continue;
    const m = KEY_LINE.exec(row);
    const own = row.length - row.trimStart().length;
    if (own >= limit) continue;
    if (m) {
      path.unshift(m[3]!);
      limit = own;
    } else limit = own;
  }
  return path;
}

const rowOf = (lines: Lines, i: number) =>
  lines.text.slice(lines.starts[i]!, (lines.starts[i + 1] ?? lines.text.length + 1) - 1);

/** The keys written beside line `line` at `indent` (in the same mapping), to leave out of completion. */
function siblingKeys(lines: Lines, line: number, indent: number): Set<string> {
  const keys = new Set<string>();
  for (const step of [-1, 1])
    for (let i = line + step; i >= 0 && i < lines.starts.length; i += step) {
      const row = rowOf(lines, i);
      if (!row.trim() || row.trimStart().startsWith('#')) continue;
      const own = row.length - row.trimStart().length;
      if (own < indent) break;
      const m = own === indent ? /^\s*([\w-]+)\s*:/.exec(row) : null;
      if (m) keys.add(m[1]!);
      if (own === indent && row.trimStart().startsWith('- ')) break;
    }
  return keys;
}

/** What the cursor at `offset` is in. */
export function cursorContext(lines: Lines, offset: number): CursorContext | undefined {
  const { line, col, start } = lineAround(lines, offset);
  const before = line.slice(0, col);
  const lineNo = lines.starts.indexOf(start);
  const open = before.lastIndexOf('{{');
  if (open >= 0 && before.indexOf('}}', open) < 0) {
    const prefix = /[\w.]*$/.exec(before)![0];
    return { at: 'template', prefix, from: offset - prefix.length };
  }
  const keyOnly = /^(\s*)((?:- )*)([\w-]*)$/.exec(before);
  if (keyOnly) {
    const indent = keyOnly[1]!.length + keyOnly[2]!.length;
    const prefix = keyOnly[3]!;
    const path = pathAbove(lines, lineNo, indent);
    const siblings = siblingKeys(lines, lineNo, indent);
    return { at: 'key', path, prefix, from: offset - prefix.length, siblings };
  }
  const m = /([\w-]+):\s+((?:[^,{}[\]:]|:(?!\s))*)$/.exec(before) ?? /([\w-]+):()$/.exec(before);
  if (!m) return undefined;
  const written = m[2]!.replace(/^["']/, '');
  const expression = /^\s*=/.test(written) || m[1] === 'expr' || m[1] === 'var';
  const prefix = expression ? /[\w.]*$/.exec(written)![0] : written;
  const indent = line.length - line.trimStart().length;
  return {
    at: 'value',
    key: m[1]!,
    path: pathAbove(lines, lineNo, indent),
    prefix,
    from: offset - prefix.length,
    expression,
  };
}
