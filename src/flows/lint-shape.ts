/**
 * Messages for mistakes in a flow file's shape that say what to do: a key indented under the key above it
 * ("move it four spaces left"), an unknown key with the closest key of that place and the places the key
 * belongs to, a value of the wrong kind with what is expected there, and the YAML parser's errors in words
 * a designer can act on. The format's places are read from its JSON Schema, so they never drift from zod.
 */
import type { z } from 'zod';
import { KIND_NAMES } from './kinds/registry.ts';
import { changeTo, closest, type Locator, type Path, type Problem, type ProblemCode } from './problems.ts';
import { flowJsonSchema, type StepSchemaKind } from './schema.ts';

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  $ref?: string;
  const?: unknown;
  enum?: unknown[];
  description?: string;
};
type Root = JsonSchema & { $defs?: Record<string, JsonSchema> };

/** The format's JSON Schema with a project's own kinds, and the places each key is allowed in. */
interface Format {
  readonly root: Root;
  readonly kinds: readonly StepSchemaKind[];
  places?: Map<string, Set<string>>;
}
const NO_KINDS: readonly StepSchemaKind[] = [];
const formats = new WeakMap<readonly StepSchemaKind[], Format>();
function formatOf(given: readonly StepSchemaKind[]): Format {
  const kinds = given.length ? given : NO_KINDS;
  let f = formats.get(kinds);
  if (!f) {
    f = { root: flowJsonSchema(kinds) as Root, kinds };
    formats.set(kinds, f);
  }
  return f;
}
const deref = (f: Format, x: JsonSchema | undefined): JsonSchema | undefined =>
  x?.$ref ? f.root.$defs?.[x.$ref.split('/').pop()!] : x;

/** The schema at `path`: a union is resolved by the value (a step by its type), unless `keepLast`. */
function schemaAt(f: Format, path: Path, data: unknown, keepLast = false): JsonSchema | undefined {
  const pick = (x: JsonSchema | undefined, value: unknown): JsonSchema | undefined => {
    const node = deref(f, x);
    const options = node?.oneOf ?? node?.anyOf;
    if (!options) return node;
    const type = value && typeof value === 'object' ? (value as { type?: unknown }).type : undefined;
    const objects = options.map((o) => deref(f, o)).filter((o): o is JsonSchema => !!o?.properties);
    // A step's `type` may be a reused definition ($ref) rather than written in place.
    return objects.find((o) => deref(f, o.properties?.type)?.const === type) ?? objects[0];
  };
  let node = pick(f.root, data);
  let value = data;
  path.forEach((seg, i) => {
    value = value && typeof value === 'object' ? (value as Record<string | number, unknown>)[seg] : undefined;
    const next =
      typeof seg === 'number'
        ? node?.items
        : (node?.properties?.[seg] ??
          (typeof node?.additionalProperties === 'object' ? node.additionalProperties : undefined));
    node = keepLast && i === path.length - 1 ? deref(f, next) : pick(next, value);
  });
  return node;
}

/** The keys the format (with a project's `kinds`) allows at `path`. */
export function knownKeysAt(
  path: Path,
  data: unknown,
  kinds: readonly StepSchemaKind[] = NO_KINDS,
): string[] {
  return keysAt(formatOf(kinds), path, data);
}
const keysAt = (f: Format, path: Path, data: unknown) =>
  Object.keys(schemaAt(f, path, data)?.properties ?? {}).filter((k) => k !== '$schema');

/** Every place of the format a key is allowed in: "input steps", "retries of input steps", "buttons". */
function placesOf(f: Format, key: string): string[] {
  if (!f.places) {
    const places = new Map<string, Set<string>>();
    const seen = new Set<JsonSchema>();
    const walk = (x: JsonSchema | undefined, label: string, depth: number): void => {
      const node = deref(f, x);
      if (!node || depth > 7) return;
      for (const o of node.oneOf ?? node.anyOf ?? []) {
        const d = deref(f, o);
        const step = deref(f, d?.properties?.type)?.const;
        walk(o, typeof step === 'string' && label === 'steps' ? `${step} steps` : label, depth + 1);
      }
      if (node.items) walk(node.items, label, depth + 1);
      if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, label, depth + 1);
      if (!node.properties || seen.has(node)) return;
      seen.add(node);
      for (const [k, v] of Object.entries(node.properties)) {
        if (k === '$schema') continue;
        const set = places.get(k) ?? new Set();
        set.add(label);
        places.set(k, set);
        const named = k === 'keyboard' ? 'buttons' : label === 'the top level' ? k : `${k} of ${label}`;
        walk(v, k === 'steps' ? 'steps' : named, depth + 1);
      }
      seen.delete(node);
    };
    walk(f.root, 'the top level', 0);
    f.places = places;
  }
  return [...(f.places.get(key) ?? [])];
}

/** A zod issue as a problem at its place, saying what to do. */
export function issueToProblem(
  issue: z.core.$ZodIssue,
  data: unknown,
  file: string,
  locate: Locator,
  /** The project's own kinds of step (defineStepKind), known beside the built-in ones. */
  kinds: readonly StepSchemaKind[] = NO_KINDS,
): Problem {
  const f = formatOf(kinds);
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const where = path.length ? `${path.join('.')}: ` : '';
  const problem = (
    code: ProblemCode,
    at: Path,
    message: string,
    hint?: string,
    key = false,
    change?: string,
  ) => {
    const span = locate.at(at, key);
    const fixes = change === undefined ? undefined : [changeTo(file, span, change)];
    return {
      file,
      ...span,
      code,
      severity: 'error' as const,
      message: `${where}${message}`,
      ...(hint ? { hint } : {}),
      ...(fixes ? { fixes } : {}),
    };
  };
  if (issue.code === 'unrecognized_keys') return unknownKey(f, path, issue.keys[0]!, data, locate, problem);
  if (issue.code === 'invalid_union' && 'note' in issue && issue.note === 'No matching discriminator') {
    const typePath = path.at(-1) === 'type' ? path : [...path, 'type'];
    const given = getAt(data, typePath);
    const types = [...KIND_NAMES, ...kinds.map((k) => k.type)];
    const guess = typeof given === 'string' ? closest(given, types) : undefined;
    return problem(
      'unknown-step-type',
      typePath,
      given === undefined ? 'a step needs a type' : `unknown step type "${String(given)}"`,
      `${guess ? `did you mean "${guess}"? ` : ''}type is one of ${types.join(', ')}`,
      false,
      guess,
    );
  }
  if (issue.code === 'invalid_value') {
    const options = issue.values.map(String);
    const given = String(getAt(data, path) ?? '');
    const guess = closest(given, options);
    return problem(
      'bad-value',
      path,
      `"${given}" is not one of ${options.join(', ')}`,
      guess ? `did you mean "${guess}"?` : undefined,
      false,
      guess,
    );
  }
  const value = getAt(data, path);
  if (value === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_union')) {
    const custom =
      issue.message.includes('expected') || issue.message === 'Invalid input' ? '' : `: ${issue.message}`;
    // zod's own "expected …, received undefined" points at the key; a custom message at the parent.
    const atKey = issue.code === 'invalid_type' && issue.message.includes('undefined');
    return problem(
      'missing-key',
      path,
      `is required${custom}`,
      `add "${String(path[path.length - 1])}"`,
      atKey,
    );
  }
  if (issue.code === 'invalid_union' || issue.code === 'invalid_type') {
    const expected = expectedAt(f, path, data);
    const got = describeValue(value);
    if (issue.message !== 'Invalid input' && !/^Invalid input: expected/.test(issue.message))
      return problem('wrong-type', path, issue.message);
    if (expected)
      return problem('wrong-type', path, `expected ${expected}, not ${got}`, hintFor(path, value));
  }
  return problem('schema', path, issue.message);
}

/** Makes a problem of the shape at a place (issueToProblem's, with its prefix). */
type MakeProblem = (
  code: ProblemCode,
  at: Path,
  message: string,
  hint?: string,
  key?: boolean,
  change?: string,
) => Problem;

/** A key the format does not have here: indented one level too deep, or a typo with its did-you-mean. */
function unknownKey(
  f: Format,
  path: Path,
  key: string,
  data: unknown,
  locate: Locator,
  problem: MakeProblem,
): Problem {
  const misplaced = indentedUnder(f, path, key, data, locate);
  if (misplaced)
    return problem(
      'misplaced-key',
      [...path, key],
      `"${key}" is indented under "${misplaced.under}": move it ${misplaced.spaces} spaces left`,
      `"${key}" belongs beside "${misplaced.under}", at the same indentation`,
      true,
    );
  const known = keysAt(f, path, data);
  const guess = closest(key, known);
  const elsewhere = placesOf(f, key);
  const belongs = elsewhere.length
    ? `"${key}" is a key of ${elsewhere.slice(0, 4).join(', ')}${elsewhere.length > 4 ? ', …' : ''}`
    : '';
  return problem(
    'unknown-key',
    [...path, key],
    `unknown key "${key}"`,
    guess
      ? `did you mean "${guess}"?${belongs ? ` (${belongs})` : ''}`
      : belongs
        ? `${belongs}, not of this place; allowed here: ${known.join(', ')}`
        : known.length
          ? `allowed here: ${known.join(', ')}`
          : 'remove it (flows/flow.schema.json lists every key)',
    true,
    guess,
  );
}

/** A key written one level too deep: allowed (and missing) at an enclosing place. */
function indentedUnder(
  f: Format,
  path: Path,
  key: string,
  data: unknown,
  locate: Locator,
): { under: string; spaces: number } | undefined {
  for (let j = path.length - 1; j >= 0; j--) {
    const outer = path.slice(0, j);
    const container = getAt(data, outer);
    if (!container || typeof container !== 'object' || key in container) continue;
    if (!keysAt(f, outer, data).includes(key)) continue;
    const under = path[j]!;
    if (typeof under !== 'string') continue;
    const keyCol = locate.at([...path, key], true).col;
    const underCol = locate.at([...outer, under], true).col;
    if (keyCol > underCol) return { under, spaces: keyCol - underCol };
  }
  return undefined;
}

/** "a text or a list" from the schema's options at `path`. */
function expectedAt(f: Format, path: Path, data: unknown): string | undefined {
  const node = schemaAt(f, path, data, true);
  if (!node) return undefined;
  const options = (node.oneOf ?? node.anyOf ?? [node])
    .map((o) => deref(f, o))
    .filter((o): o is JsonSchema => !!o);
  const kinds = [
    ...new Set(
      options.map((o) => {
        if (o.properties) return `{ ${Object.keys(o.properties).slice(0, 6).join(', ')} }`;
        if (o.items || o.type === 'array') return 'a list';
        if (o.enum) return `one of ${o.enum.join(', ')}`;
        if (o.const !== undefined) return JSON.stringify(o.const);
        return o.type === 'string'
          ? 'a text'
          : o.type === 'integer' || o.type === 'number'
            ? 'a number'
            : String(o.type ?? 'a value');
      }),
    ),
  ];
  return kinds.length ? kinds.join(' or ') : undefined;
}

function hintFor(path: Path, value: unknown): string | undefined {
  const key = path[path.length - 1];
  if (key === 'next' && value && typeof value === 'object' && !Array.isArray(value))
    return 'write next: <step id>, or a list: next: [{ when: {…}, goto: a }, { goto: b }]';
  if (key === 'goto' || key === 'next' || key === 'start' || key === 'else')
    return `write the id of a step: ${String(key)}: confirm`;
  return undefined;
}

function describeValue(v: unknown): string {
  if (v === null) return 'nothing (null)';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return `{ ${Object.keys(v as object).join(', ')} }`;
  if (typeof v === 'string') return `the text "${v}"`;
  return `${typeof v} ${String(v)}`;
}

/** The YAML parser's error, with what to do about it. */
export function yamlHint(code: string, message: string): string {
  switch (code) {
    case 'BLOCK_AS_IMPLICIT_KEY':
      return 'the value contains ": ", which starts a key: put the whole value in "double quotes"';
    case 'BAD_INDENT':
      return /Flow (map|sequence)/.test(message)
        ? `a ${message.includes('map') ? '{' : '['} is not closed: add the ${message.includes('map') ? '}' : ']'}, or indent its next lines further`
        : 'this key is not lined up with the keys above it: indent it like its siblings (spaces, two per level)';
    case 'TAB_AS_INDENT':
      return 'indent with spaces, not tabs';
    case 'DUPLICATE_KEY':
      return 'this key is written twice in the same place: keep one (rename a copied step)';
    case 'MISSING_CHAR':
      return 'a quote is not closed: close it on the same line';
    case 'MULTILINE_IMPLICIT_KEY':
      return 'a key runs over two lines: is a quote or bracket on the line above left open?';
    default:
      return 'fix the YAML syntax (indentation, quotes, colons)';
  }
}

function getAt(data: unknown, path: Path): unknown {
  let cur = data;
  for (const seg of path)
    cur = cur && typeof cur === 'object' ? (cur as Record<string | number, unknown>)[seg] : undefined;
  return cur;
}
