/**
 * The fields of a flow file and of each kind of step, with their documentation: read off the zod schemas
 * (each field `.describe()`d; the built-in kinds' in kinds/<kind>/schema.ts, the project's own kinds'
 * from the registry), so the editor says what `botflow check` and the JSON Schema say.
 */

import { projectKinds } from '../../flows/kinds/custom-adapter.ts';
import { BUILTIN_KINDS } from '../../flows/kinds/registry.ts';
import type { Registry } from '../../flows/registry.ts';
import { flowFileSchema } from '../../flows/schema.ts';

export interface FieldDoc {
  name: string;
  description?: string;
  required: boolean;
}

export interface KindDoc {
  type: string;
  summary: string;
  fields: FieldDoc[];
  project: boolean;
}

type Zodish = {
  description?: string;
  _zod?: {
    def?: {
      type?: string;
      innerType?: unknown;
      shape?: unknown;
      element?: unknown;
      options?: unknown[];
      valueType?: unknown;
      in?: unknown;
      getter?: () => unknown;
      entries?: Record<string, unknown>;
      values?: unknown[];
    };
  };
  shape?: unknown;
};

/** A schema's description, through its optional, default and nullable wrappers. */
export function describeOf(schema: unknown): string | undefined {
  let s = schema as Zodish | undefined;
  for (let i = 0; s && i < 5; i++) {
    if (s.description) return s.description;
    s = s._zod?.def?.innerType as Zodish | undefined;
  }
  return undefined;
}

function fieldsOf(schema: unknown): FieldDoc[] {
  const z = schema as Zodish;
  const shape = (z.shape ?? z._zod?.def?.shape) as Record<string, Zodish> | undefined;
  if (!shape || typeof shape !== 'object') return [];
  return Object.entries(shape).map(([name, s]) => {
    const description = describeOf(s);
    const type = s._zod?.def?.type;
    return {
      name,
      required: type !== 'optional' && type !== 'default',
      ...(description ? { description } : {}),
    };
  });
}

const WRAPPERS = new Set(['optional', 'default', 'nullable', 'readonly', 'catch', 'prefault', 'nonoptional']);

/** What a schema may be under its wrappers, lists, pipes and lazies (a union: each of its options). */
function shapesOf(schema: unknown, depth = 0): Zodish[] {
  const z = schema as Zodish | undefined;
  const def = z?._zod?.def;
  if (!def || depth > 8) return [];
  if (WRAPPERS.has(def.type ?? '')) return shapesOf(def.innerType, depth + 1);
  if (def.type === 'array') return shapesOf(def.element, depth + 1);
  if (def.type === 'union') return (def.options ?? []).flatMap((o) => shapesOf(o, depth + 1));
  if (def.type === 'pipe') return shapesOf(def.in, depth + 1);
  if (def.type === 'lazy' && def.getter) return shapesOf(def.getter(), depth + 1);
  return [z!];
}

/** The schemas under `key` of a mapping of one of `level`'s shapes (a record's key is a name). */
function under(level: Zodish[], key: string): Zodish[] {
  return level.flatMap((z) => {
    const def = z._zod?.def;
    if (def?.type === 'record') return shapesOf(def.valueType);
    const shape = (z.shape ?? def?.shape) as Record<string, unknown> | undefined;
    return def?.type === 'object' && shape && key in shape ? shapesOf(shape[key]) : [];
  });
}

/** The fields of the mapping at `keys` under a schema (`['retries', 'exhausted']`), from every shape it may have. */
export function fieldsUnder(schema: unknown, keys: readonly string[]): FieldDoc[] {
  let level = shapesOf(schema);
  for (const key of keys) {
    level = under(level, key);
    if (!level.length) return [];
  }
  const seen = new Map<string, FieldDoc>();
  for (const o of level)
    if (o._zod?.def?.type === 'object')
      for (const f of fieldsOf(o)) if (!seen.has(f.name)) seen.set(f.name, f);
  return [...seen.values()];
}

const builtins = new Map<string, KindDoc>(
  BUILTIN_KINDS.map((k) => [
    k.type,
    { type: k.type, summary: k.summary, fields: fieldsOf(k.schema), project: false },
  ]),
);
const projectDocs = new WeakMap<Registry, Map<string, KindDoc>>();

/** Every kind of step, the built-in ones and the project's own. */
export function kindDocs(registry: Registry): Map<string, KindDoc> {
  const known = projectDocs.get(registry);
  if (known) return known;
  const all = new Map(builtins);
  for (const k of projectKinds(registry))
    all.set(k.type, { type: k.type, summary: k.summary, fields: fieldsOf(k.schema), project: true });
  projectDocs.set(registry, all);
  return all;
}

let flowFields: FieldDoc[] | undefined;

/** The top-level fields of a flow file. */
export function flowFieldDocs(): FieldDoc[] {
  flowFields ??= fieldsOf(flowFileSchema([]));
  return flowFields;
}

const kindSchemas = new WeakMap<Registry, Map<string, unknown>>();

/** The schema of a kind of step (`flow`: the flow file's). */
function schemaOf(registry: Registry, kind: string): unknown {
  if (kind === 'flow') return flowFileSchema([]);
  let known = kindSchemas.get(registry);
  if (!known) {
    known = new Map<string, unknown>([
      ...BUILTIN_KINDS.map((k): [string, unknown] => [k.type, k.schema]),
      ...projectKinds(registry).map((k): [string, unknown] => [k.type, k.schema]),
    ]);
    kindSchemas.set(registry, known);
  }
  return known.get(kind);
}

/** The fields of the mapping at `keys` in a step of kind `kind` (or in the flow file, `kind` "flow"). */
export function fieldsAt(registry: Registry, kind: string, keys: readonly string[]): FieldDoc[] {
  if (!keys.length) return kind === 'flow' ? flowFieldDocs() : (kindDocs(registry).get(kind)?.fields ?? []);
  const schema = schemaOf(registry, kind);
  return schema ? fieldsUnder(schema, keys) : [];
}

/** The documentation of a key at `keys` (its mapping's keys, then its name) in a step of kind `kind`. */
export function fieldDoc(registry: Registry, kind: string, name: string, keys: readonly string[] = []) {
  return fieldsAt(registry, kind, keys).find((f) => f.name === name);
}

/** The values a key at `keys` accepts when they are a closed list (an enum's, literals'): `input: text`, `render: edit`. */
export function valuesAt(registry: Registry, kind: string, keys: readonly string[], key: string): string[] {
  const schema = schemaOf(registry, kind);
  if (!schema) return [];
  let level = shapesOf(schema);
  for (const k of [...keys, key]) level = under(level, k);
  const out = new Set<string>();
  for (const z of level) {
    const def = z._zod?.def;
    if (def?.type === 'enum') for (const v of Object.values(def.entries ?? {})) out.add(String(v));
    if (def?.type === 'literal') for (const v of def.values ?? []) if (typeof v === 'string') out.add(v);
  }
  return [...out];
}
