/**
 * What `botflow check` knows about the type of a conversation variable: a text, a number, a list, an
 * object with known fields (a contact, a task result with a zod schema, an `options_from` item), or
 * unknown (a computed value, a task that is a plain function). Only what is known is checked.
 */
import type { InputKind } from './kinds/fields.ts';

export type VarType =
  | { kind: 'unknown'; why?: string }
  | { kind: 'text' | 'number' | 'boolean' | 'date' | 'null' }
  | { kind: 'object'; fields: Record<string, VarType>; from?: string }
  | { kind: 'list'; item: VarType; from?: string };

export const UNKNOWN: VarType = { kind: 'unknown' };
const TEXT: VarType = { kind: 'text' };
const NUMBER: VarType = { kind: 'number' };
const obj = (fields: Record<string, VarType>, from?: string): VarType => ({
  kind: 'object',
  fields,
  ...(from ? { from } : {}),
});

const FILE = { kind: TEXT, url: TEXT, token: TEXT, filename: TEXT, size: NUMBER };

/** What an input of these kinds saves. */
export function typeOfInput(kinds: readonly InputKind[]): VarType {
  const one = (k: InputKind): VarType => {
    switch (k) {
      case 'number':
      case 'integer':
        return NUMBER;
      case 'date':
        return { kind: 'date' };
      case 'multi_choice':
        return { kind: 'list', item: TEXT };
      case 'contact':
        return obj({ name: TEXT, phone: TEXT, user_id: NUMBER }, 'a shared contact');
      case 'location':
        return obj({ latitude: NUMBER, longitude: NUMBER }, 'a location');
      case 'photo':
      case 'file':
        return obj(FILE, 'an attachment');
      default:
        return TEXT;
    }
  };
  return kinds.map(one).reduce(joinTypes);
}

/** The type of a literal `set:` value (a value written "= …" is computed: unknown here). */
export function typeOfValue(v: unknown): VarType {
  if (typeof v === 'string') return v.startsWith('=') ? UNKNOWN : TEXT;
  if (typeof v === 'number') return NUMBER;
  if (typeof v === 'boolean') return { kind: 'boolean' };
  if (v === null) return { kind: 'null' };
  return UNKNOWN;
}

type ZodDef = {
  type?: string;
  shape?: Record<string, unknown>;
  element?: unknown;
  innerType?: unknown;
  in?: unknown;
  out?: unknown;
  options?: unknown[];
  getter?: () => unknown;
};
const defOf = (s: unknown): ZodDef | undefined =>
  s && typeof s === 'object'
    ? (((s as { def?: unknown }).def ?? (s as { _zod?: { def?: unknown } })._zod?.def) as ZodDef | undefined)
    : undefined;

/** The type a zod (4) schema describes, read from its definition: objects, arrays, scalars, wrappers. */
export function typeOfZod(schema: unknown, from: string, depth = 0): VarType {
  const def = defOf(schema);
  if (!def || depth > 8) return UNKNOWN;
  switch (def.type) {
    case 'string':
    case 'enum':
    case 'literal':
    case 'template_literal':
      return TEXT;
    case 'number':
    case 'int':
    case 'bigint':
      return NUMBER;
    case 'boolean':
      return { kind: 'boolean' };
    case 'object': {
      const fields: Record<string, VarType> = {};
      for (const [k, v] of Object.entries(def.shape ?? {})) fields[k] = typeOfZod(v, from, depth + 1);
      return obj(fields, from);
    }
    case 'array':
      return { kind: 'list', item: typeOfZod(def.element, from, depth + 1), from };
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return typeOfZod(def.innerType, from, depth + 1);
    case 'pipe':
      return typeOfZod(def.out, from, depth + 1);
    case 'lazy':
      return def.getter ? typeOfZod(def.getter(), from, depth + 1) : UNKNOWN;
    case 'union':
      return (def.options ?? []).map((o) => typeOfZod(o, from, depth + 1)).reduce(joinTypes, NEVER);
    default:
      return UNKNOWN;
  }
}

/** A placeholder for "no assignment yet" when joining. */
const NEVER: VarType = { kind: 'unknown', why: 'never' };

/** The type of a variable assigned in several places: the same kind stays, objects keep every field. */
export function joinTypes(a: VarType, b: VarType): VarType {
  if (a === NEVER) return b;
  if (b === NEVER) return a;
  if (a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  if (a.kind === 'object' && b.kind === 'object') {
    const fields = { ...a.fields };
    for (const [k, t] of Object.entries(b.fields)) fields[k] = k in fields ? joinTypes(fields[k]!, t) : t;
    return obj(fields, a.from === b.from ? a.from : undefined);
  }
  if (a.kind === 'list' && b.kind === 'list') return { kind: 'list', item: joinTypes(a.item, b.item) };
  if ((a.kind === 'date' && b.kind === 'text') || (a.kind === 'text' && b.kind === 'date')) return TEXT;
  return a.kind === b.kind && a.kind !== 'unknown' ? a : UNKNOWN;
}

/** "a number", "a list", "an object with fields a, b". */
export function describeType(t: VarType): string {
  switch (t.kind) {
    case 'object':
      return `${t.from ?? 'an object'} (fields: ${Object.keys(t.fields).join(', ') || 'none'})`;
    case 'list':
      return 'a list';
    case 'date':
      return 'a date';
    case 'null':
      return 'nothing';
    case 'unknown':
      return 'unknown';
    default:
      return `a ${t.kind}`;
  }
}

/** Reading `.field` of a value of type `t`: its type, or why it cannot be read. */
export function fieldType(t: VarType, field: string): { type: VarType } | { missing: string[] } {
  if (t.kind === 'object')
    return field in t.fields ? { type: t.fields[field]! } : { missing: Object.keys(t.fields) };
  if (t.kind === 'list' && /^(\d+|length)$/.test(field))
    return { type: field === 'length' ? NUMBER : t.item };
  if (t.kind === 'unknown') return { type: UNKNOWN };
  return { missing: [] };
}

/**
 * A Fluent argument `$contact_phone` read against a variable's type: the variable's fields are joined
 * with `_` (see texts.ts). Returns the field path, or the first part that matches no field.
 */
export function fluentFields(
  t: VarType,
  rest: string,
): { ok: true } | { ok: false; at: string; missing: string[]; type: VarType } {
  if (!rest || t.kind === 'unknown') return { ok: true };
  if (t.kind !== 'object') return { ok: false, at: rest, missing: [], type: t };
  const names = Object.keys(t.fields).sort((a, b) => b.length - a.length);
  for (const f of names) {
    if (rest === f) return { ok: true };
    if (rest.startsWith(`${f}_`)) {
      const r = fluentFields(t.fields[f]!, rest.slice(f.length + 1));
      if (r.ok) return r;
    }
  }
  return { ok: false, at: rest, missing: names, type: t };
}

/** The type of a dotted path (`quote.items`) among the variables' types, when every step of it is known. */
export function typeAt(types: ReadonlyMap<string, VarType>, dotted: string): VarType | undefined {
  const [name, ...fields] = dotted.split('.');
  let t = types.get(name!);
  for (const f of fields) {
    if (!t) return undefined;
    const next = fieldType(t, f);
    t = 'type' in next ? next.type : UNKNOWN;
  }
  return t;
}
