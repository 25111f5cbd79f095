/**
 * Reading request arguments: query parameters arrive as strings (numbers parsed, arrays
 * comma-separated, booleans exactly `true`/`false`); a parameter that belongs in the query is never
 * read from the body.
 */
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { DecodeError, decode } from '../client/schemas/index.ts';
import { badRequest } from './errors.ts';

type Args = Record<string, unknown>;

/** Query and path parameters (never the body: the platform reads query parameters only from the query). */
export function argsOf(req: FastifyRequest): Args {
  return { ...(req.params as Args), ...(req.query as Args) };
}

/** The JSON body as an object (an absent body is `{}`); 400 when it is something else. */
export function bodyOf(req: FastifyRequest): Args {
  if (req.body === undefined || req.body === null || req.body === '') return {};
  if (typeof req.body !== 'object' || Array.isArray(req.body))
    throw badRequest('The request body must be a JSON object');
  return req.body as Args;
}

/** An integer argument; 400 naming the argument when it is present but not an integer. */
export function intArg(args: Args, name: string): number | undefined;
export function intArg(args: Args, name: string, required: true): number;
export function intArg(args: Args, name: string, required = false): number | undefined {
  const v = args[name];
  if (v === undefined || v === null || v === '') {
    if (required) throw badRequest(`Missing required parameter "${name}"`);
    return undefined;
  }
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isSafeInteger(n))
    throw badRequest(`Parameter "${name}" must be an integer, got ${JSON.stringify(v)}`);
  return n;
}

/** A string argument. */
export function strArg(args: Args, name: string): string | undefined;
export function strArg(args: Args, name: string, required: true): string;
export function strArg(args: Args, name: string, required = false): string | undefined {
  const v = args[name];
  if (v === undefined || v === null || v === '') {
    if (required) throw badRequest(`Missing required parameter "${name}"`);
    return undefined;
  }
  if (typeof v !== 'string' && typeof v !== 'number')
    throw badRequest(`Parameter "${name}" must be a string`);
  return String(v);
}

/** A boolean argument: `true`/`false` in the query, a JSON boolean in a body; absent is `undefined`. */
export function boolArg(args: Args, name: string): boolean | undefined {
  const v = args[name];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw badRequest(`Parameter "${name}" must be true or false, got ${JSON.stringify(v)}`);
}

/** A list argument: a JSON array or a comma-separated string. */
export function listArg(args: Args, name: string): string[] | undefined {
  const v = args[name];
  if (v === undefined || v === null || v === '') return undefined;
  if (Array.isArray(v)) return v.map(String);
  return String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Decodes a body with an API schema; a mismatch is the platform's 400 naming the field. */
export function decodeBody<S extends z.ZodType>(schema: S, raw: unknown, what: string): z.infer<S> {
  try {
    return decode(schema, raw, what);
  } catch (err) {
    if (err instanceof DecodeError) throw badRequest(err.message);
    throw err;
  }
}
