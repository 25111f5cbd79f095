/**
 * The fields a task's zod input schema names, read from its definition: `botflow check` compares a flow's
 * `input:` with them, and the runner warns about the fields zod would drop.
 */

type Def = {
  type?: string;
  shape?: Record<string, unknown>;
  catchall?: unknown;
  innerType?: unknown;
  in?: unknown;
};

/** How an object schema treats fields it does not name: dropped (zod's default), refused, or kept. */
export type ExtraFields = 'strip' | 'strict' | 'loose';

const defOf = (s: unknown): Def | undefined =>
  s && typeof s === 'object' ? ((s as { _zod?: { def?: Def } })._zod?.def ?? undefined) : undefined;

/**
 * The fields of a zod object schema (through optional, default, nullable and pipe wrappers), with how it
 * treats other fields; undefined when the schema is not an object (then nothing is checked).
 */
export function objectFields(
  schema: unknown,
): { shape: Record<string, unknown>; extra: ExtraFields } | undefined {
  let def = defOf(schema);
  for (let depth = 0; def && depth < 8; depth++) {
    if (def.type === 'object') {
      const rest = defOf(def.catchall)?.type;
      const extra = rest === undefined ? 'strip' : rest === 'never' ? 'strict' : 'loose';
      return { shape: def.shape ?? {}, extra };
    }
    const inner = def.type === 'pipe' ? def.in : def.innerType;
    if (inner === undefined) return undefined;
    def = defOf(inner);
  }
  return undefined;
}

/** The fields of `input` that `schema` drops without a word (an object schema in zod's default mode). */
export function droppedFields(schema: unknown, input: unknown): string[] {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return [];
  const fields = objectFields(schema);
  if (fields?.extra !== 'strip') return [];
  return Object.keys(input).filter((k) => !Object.hasOwn(fields.shape, k));
}
