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
  _zod?: { def?: { type?: string; innerType?: unknown; shape?: unknown } };
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

/** The documentation of a key: a step's field (of kind `kind`) or a flow's (`kind` "flow"). */
export function fieldDoc(registry: Registry, kind: string, name: string): FieldDoc | undefined {
  const list = kind === 'flow' ? flowFieldDocs() : kindDocs(registry).get(kind)?.fields;
  return list?.find((f) => f.name === name);
}
