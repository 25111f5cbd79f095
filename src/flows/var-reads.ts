/** Where a flow file reads variables: `{{a.b}}` in texts, names in `= expressions`, `$a_b` in Fluent messages. */

import type { Span } from './problems.ts';
import type { Catalog } from './texts.ts';

export interface NameRead {
  /** The variable and the fields read from it: `slot.time` → slot, [time]. */
  name: string;
  fields: string[];
  /** Where the name starts in the text. */
  index: number;
  /** Fine when unset: `exists(x)`, `empty(x)`, a Fluent selector with its default variant. */
  maybe?: boolean;
}

const split = (dotted: string, index: number, maybe?: boolean): NameRead => {
  const [name, ...fields] = dotted.split('.');
  return { name: name!, fields, index, ...(maybe ? { maybe } : {}) };
};

/** `{{ name }}`, `{{ contact.phone }}` in a literal text. */
export function templateReads(text: string): NameRead[] {
  return [...text.matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)].map((m) =>
    split(m[1]!, m.index + m[0].indexOf(m[1]!)),
  );
}

const KEYWORDS = new Set([
  'and',
  'or',
  'not',
  'if',
  'then',
  'else',
  'in',
  'of',
  'mod',
  'true',
  'false',
  'null',
]);

/** The variables an expression (`= qty * price`, `party >= 6`) reads, outside its texts and calls. */
export function expressionReads(source: string): NameRead[] {
  const offset = source.length - source.replace(/^\s*=?/, '').length;
  const body = source.slice(offset);
  // Texts become blanks of the same length, so that indexes stay those of the source.
  const code = body.replace(/"(?:[^"\\]|\\.)*"/g, (s) => ' '.repeat(s.length));
  const guarded = new Set(
    [...code.matchAll(/\b(?:exists|empty)\s*\(\s*([A-Za-z_$][\w$.]*)\s*\)/g)].map(
      (m) => m[1]!.split('.')[0]!,
    ),
  );
  const out: NameRead[] = [];
  for (const m of code.matchAll(/'((?:[^'\\]|\\.)*)'|([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)/g)) {
    const name = m[1] ?? m[2]!;
    const before = code[m.index - 1];
    if (m[2] && ((before && /[\w.]/.test(before)) || KEYWORDS.has(name))) continue;
    if (/^\s*\(/.test(code.slice(m.index + m[0].length))) continue; // a function
    const read = split(name, offset + m.index + (m[1] !== undefined ? 1 : 0));
    out.push(guarded.has(read.name) ? { ...read, maybe: true } : read);
  }
  return out;
}

type Node = {
  type?: string;
  name?: string;
  selector?: Node;
  variants?: { value: Pattern }[];
  args?: Node[];
  value?: Node;
};
type Pattern = string | (string | Node)[];

/** The `$variables` of a Fluent message; a selector's own variable may be unset (its default variant). */
export function fluentReads(catalog: Catalog, id: string): { name: string; maybe: boolean }[] {
  const message = catalog.bundle.getMessage(id);
  const out: { name: string; maybe: boolean }[] = [];
  const expr = (n: Node | undefined, maybe: boolean): void => {
    if (!n || typeof n !== 'object') return;
    if (n.type === 'var' && n.name) out.push({ name: n.name, maybe });
    if (n.type === 'select') {
      expr(n.selector, true);
      for (const v of n.variants ?? []) pattern(v.value);
    }
    for (const a of n.args ?? []) expr(a.type === 'narg' ? a.value : a, maybe);
  };
  const pattern = (p: Pattern | null | undefined): void => {
    if (Array.isArray(p)) for (const e of p) if (typeof e !== 'string') expr(e, false);
  };
  pattern(message?.value as Pattern | undefined);
  for (const attr of Object.values(message?.attributes ?? {})) pattern(attr as Pattern);
  return out;
}

/** Where `$name` is written in the catalog's entry for message `id` (1-based), or the entry's line. */
export function ftlPosition(catalog: Catalog, id: string, name: string): Span {
  const first = catalog.ids.get(id) ?? 1;
  return ftlSpan(catalog, id, name) ?? { line: first, col: 1, endLine: first, endCol: 1 + id.length };
}

/** Where `$name` is in message `id` of the catalog, or undefined when it is not written there. */
export function ftlSpan(catalog: Catalog, id: string, name: string): Span | undefined {
  const first = catalog.ids.get(id) ?? 1;
  const lines = (catalog.text ?? '').split('\n');
  for (let i = first - 1; i < lines.length; i++) {
    if (i > first - 1 && /^[^\s]/.test(lines[i]!)) break;
    const m = new RegExp(`\\$${name}(?![\\w-])`).exec(lines[i]!);
    if (m) return { line: i + 1, col: m.index + 1, endLine: i + 1, endCol: m.index + 2 + name.length };
  }
  return undefined;
}
