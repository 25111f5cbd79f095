/**
 * Configuration problems in words a person can act on: a zod issue becomes "where: what is wrong", with the
 * allowed values, limits or the key that was probably meant; secrets are never echoed.
 */
import type { z } from 'zod';
import { closest } from '../flows/problems.ts';
import { ConfigSchema, SECRET_PATHS } from './config-schema.ts';
import { type ConfigFile, specFor } from './config-sources.ts';

/** One thing wrong with the configuration. */
export interface ConfigProblem {
  /** Dotted key (`webhook.url`), or `''` for the file as a whole. */
  key: string;
  /** Where it was set, as a person finds it: `botflow.config.yaml:3:7`, `BOTFLOW_MODE`, `--port`. */
  where: string;
  /** What is wrong and how to fix it. */
  message: string;
}

/** Turns one schema issue into problems (an unknown-keys issue gives one per key). */
export function describeIssue(
  issue: z.core.$ZodIssue,
  where: (path: (string | number)[], key?: string) => string,
  file: ConfigFile | undefined,
): ConfigProblem[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const key = path.join('.');
  const at = (p: (string | number)[], k?: string) => where(p, k) || [...p, ...(k ? [k] : [])].join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((unknown) => {
      const siblings = Object.keys(shapeAt(path));
      const guess = closest(unknown, siblings);
      return {
        key: [...path, unknown].join('.'),
        where: at(path, unknown),
        message:
          `unknown key "${[...path, unknown].join('.')}"` +
          (guess
            ? `; did you mean "${[...path, guess].join('.')}"?`
            : `; known keys here: ${siblings.join(', ')}`),
      };
    });
  }
  const shown = SECRET_PATHS.has(specFor(key)?.path ?? '') ? '(hidden)' : show(issue.input);
  const prefix = file && where(path).startsWith(file.shown) ? `${key}: ` : '';
  let message: string;
  switch (issue.code) {
    case 'invalid_value':
      message = `${shown} is not one of ${issue.values.map(String).join(', ')}`;
      break;
    case 'invalid_type':
      message =
        issue.input === undefined
          ? `${key} is required`
          : `expected ${issue.expected === 'int' ? 'a whole number' : `a ${issue.expected}`}, got ${shown}`;
      break;
    case 'too_small':
      message =
        issue.origin === 'string'
          ? `${shown} is too short: at least ${issue.minimum} characters`
          : `${shown} is too small: the minimum is ${issue.minimum}`;
      break;
    case 'too_big':
      message = `${shown} is too large: the maximum is ${issue.maximum}`;
      break;
    default:
      message = `${shown} is not valid: expected ${issue.message}`;
  }
  return [{ key, where: at(path), message: prefix + message }];
}

function shapeAt(path: (string | number)[]): Record<string, unknown> {
  let schema: { shape?: Record<string, unknown> } = ConfigSchema as never;
  for (const part of path) {
    if (typeof part === 'number') continue; // into a list's element (bots.0)
    let next = schema.shape?.[String(part)] as
      | { unwrap?: () => unknown; shape?: unknown; element?: unknown }
      | undefined;
    while (next && !next.shape && (next.unwrap || next.element))
      next = (next.element ?? next.unwrap!()) as typeof next;
    schema = (next ?? {}) as typeof schema;
  }
  return schema.shape ?? {};
}

function show(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
