/** The pieces transcript parsing shares: where a problem is, what to write instead. */
import { closest } from '../flows/problems.ts';

export type Path = (string | number)[];
/**
 * A transcript that does not fit the format, with where and what to write instead. Plain: the loader turns
 * it into a `file:line` problem (load.ts), as flow files' problems are; it is never thrown at a user.
 */
export class Invalid extends Error {
  constructor(
    readonly path: Path,
    message: string,
    readonly hint?: string,
    /** The did-you-mean: what should replace the faulty key or value (offered as a fix). */
    readonly change?: string,
  ) {
    super(message);
  }
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

export function keysOf(v: Obj, path: Path, allowed: string[]): void {
  for (const k of Object.keys(v)) {
    if (allowed.includes(k)) continue;
    const guess = closest(k, allowed);
    throw new Invalid(
      [...path, k],
      `unknown key "${k}"`,
      guess ? `did you mean "${guess}"?` : `allowed here: ${allowed.join(', ')}`,
      guess,
    );
  }
}

export function str(v: unknown, path: Path, what: string): string {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v !== 'string')
    throw new Invalid(path, `${what} must be a text`, `write it in quotes, e.g. "Ann"`);
  return v;
}

/** Throws Invalid at `path`. */
export function fail(path: Path, message: string, hint?: string, change?: string): never {
  throw new Invalid(path, message, hint, change);
}
