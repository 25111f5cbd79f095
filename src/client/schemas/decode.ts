import type { z } from 'zod';
import { BotflowError } from '../../errors/index.ts';
import { KnownUpdate, UPDATE_TYPES, type Update } from './updates.ts';

/**
 * A payload did not have the shape its schema expects; `path` names the field.
 *
 * @example
 * ```ts
 * import { DecodeError } from 'botflow-engine/client';
 *
 * function report(error: unknown): void {
 *   // ResponseDecodeError (an answer of the platform) is one too.
 *   if (error instanceof DecodeError) console.error(`${error.path}: ${error.message}`);
 * }
 * ```
 */
export class DecodeError extends BotflowError {
  override name = 'DecodeError';
  constructor(
    readonly what: string,
    readonly path: string,
    readonly issue: string,
    code: 'BOTFLOW_DECODE' | 'BOTFLOW_RESPONSE_DECODE' = 'BOTFLOW_DECODE',
  ) {
    super(code, `${what}: ${path ? `field ${path}: ` : ''}${issue}`);
  }
}

/** True when `value` holds a `null` anywhere inside it (objects and arrays). */
function holdsNull(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsNull);
  for (const key in value) if (holdsNull((value as Record<string, unknown>)[key])) return true;
  return false;
}

/**
 * Removes `null` object members recursively: on this platform absent and null mean the same. Returns
 * `value` itself when there is nothing to remove (most updates), sparing a copy.
 */
export function stripNulls(value: unknown): unknown {
  return value !== null && typeof value === 'object' && !holdsNull(value) ? value : copyWithoutNulls(value);
}

function copyWithoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyWithoutNulls);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v !== null) out[k] = copyWithoutNulls(v);
    }
    return out;
  }
  return value;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}

/** Decodes `raw` with `schema` leniently (nulls dropped, unknown fields kept); throws DecodeError naming the field. */
export function decode<S extends z.ZodType>(schema: S, raw: unknown, what = 'payload'): z.infer<S> {
  const result = schema.safeParse(stripNulls(raw));
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new DecodeError(what, issue ? formatPath(issue.path) : '', issue?.message ?? 'invalid');
}

const known: ReadonlySet<string> = new Set(UPDATE_TYPES);

/**
 * Decodes one update. Unknown `update_type`s become an `UnknownUpdate` instead of failing; a known
 * type with a malformed payload throws DecodeError naming the field.
 */
export function decodeUpdate(raw: unknown): Update {
  const clean = stripNulls(raw);
  if (clean === null || typeof clean !== 'object' || Array.isArray(clean)) {
    throw new DecodeError('update', '', 'expected a JSON object');
  }
  const record = clean as Record<string, unknown>;
  const type = record.update_type;
  if (typeof type !== 'string') throw new DecodeError('update', 'update_type', 'missing or not a string');
  if (!known.has(type)) {
    return {
      update_type: 'unknown',
      original_update_type: type,
      timestamp: typeof record.timestamp === 'number' ? record.timestamp : undefined,
      raw: record,
    };
  }
  return decode(KnownUpdate, record, `update ${type}`);
}
