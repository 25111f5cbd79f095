/**
 * Computed values in flow files: a `set:` value written `"= party * 2"` and a condition `{expr: "..."}`
 * are expressions over the conversation's variables, in filtrex's small spreadsheet-like language
 * (numbers, double-quoted strings, `and`/`or`/`not`, `if … then … else …`, `x in (a, b)`), compiled by that
 * library into a sandboxed function: an expression reads the variables and calls the functions below,
 * nothing else. Dates are `YYYY-MM-DD` texts; "today" is the event's day on the engine's clock (virtual in
 * transcripts), so an expression gives the same answer in a replay on any day.
 */
import { compileExpression } from 'filtrex';
import { BotflowError } from '../errors/index.ts';
import { relativeDate } from './relative-dates.ts';
import { readVar } from './vars.ts';

/** What an expression is evaluated with, besides the variables. */
export interface ExpressionScope {
  /** The event's time (ms since the epoch): `today()` and `now()` read it. */
  now: number;
  /** The person's locale: `format_number` and `format_date` write for it. */
  locale: string;
}

/** A `set:` value that is an expression: a text starting with `=`. */
export function isExpression(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('=');
}

const DAY_MS = 86_400_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function dayNumber(date: unknown, fn: string): number {
  if (typeof date !== 'string' || !ISO_DATE.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)))
    throw new TypeError(`${fn}() needs a date written YYYY-MM-DD, got ${JSON.stringify(date)}`);
  return Date.parse(`${date}T00:00:00Z`) / DAY_MS;
}
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

function length(x: unknown): number {
  if (typeof x === 'string' || Array.isArray(x)) return x.length;
  if (x === null || x === undefined) return 0;
  throw new TypeError(`len() needs a text or a list, got ${typeof x}`);
}

function text(x: unknown): string {
  if (typeof x !== 'string') throw new TypeError(`needs a text, got ${x === null ? 'nothing' : typeof x}`);
  return x;
}

/** The functions an expression may call, besides filtrex's own (abs, ceil, floor, round, min, max, …). */
function functionsFor(scope: ExpressionScope): Record<string, (...args: never[]) => unknown> {
  return {
    len: length,
    upper: (s: unknown) => text(s).toLocaleUpperCase(scope.locale),
    lower: (s: unknown) => text(s).toLocaleLowerCase(scope.locale),
    trim: (s: unknown) => text(s).trim(),
    contains: (whole: unknown, part: unknown) =>
      Array.isArray(whole) ? whole.includes(part) : text(whole).includes(text(part)),
    concat: (...parts: unknown[]) =>
      parts.map((p) => (p === null || p === undefined ? '' : String(p))).join(''),
    number: (s: unknown) => {
      const n = typeof s === 'number' ? s : Number(text(s).trim().replace(',', '.'));
      if (!Number.isFinite(n)) throw new TypeError(`number() cannot read ${JSON.stringify(s)} as a number`);
      return n;
    },
    text: (x: unknown) => (x === null || x === undefined ? '' : String(x)),
    now: () => scope.now,
    today: () => isoDay(Math.floor(scope.now / DAY_MS)),
    // A date the designer writes as in conditions: 2026-03-02, today, +30d, -1w.
    date: (s: unknown) => relativeDate(text(s), scope.now) ?? isoDay(dayNumber(s, 'date')),
    add_days: (date: unknown, n: unknown) => isoDay(dayNumber(date, 'add_days') + Number(n)),
    days_between: (from: unknown, to: unknown) =>
      dayNumber(to, 'days_between') - dayNumber(from, 'days_between'),
    format_number: (x: unknown, digits: unknown = 0) => {
      if (typeof x !== 'number') throw new TypeError(`format_number() needs a number, got ${typeof x}`);
      const d = Number(digits);
      return new Intl.NumberFormat(scope.locale, {
        minimumFractionDigits: d,
        maximumFractionDigits: d,
      }).format(x);
    },
    format_date: (date: unknown, style: unknown = 'long') =>
      new Intl.DateTimeFormat(scope.locale, {
        dateStyle: style === 'short' || style === 'medium' || style === 'full' ? style : 'long',
        timeZone: 'UTC',
      }).format(new Date(dayNumber(date, 'format_date') * DAY_MS)),
  };
}

/** The names of the functions expressions may call (for `botflow check`). */
export const EXPRESSION_FUNCTIONS: readonly string[] = [
  ...Object.keys(functionsFor({ now: 0, locale: 'en' })),
  ...['abs', 'ceil', 'floor', 'round', 'min', 'max', 'sqrt', 'log', 'log2', 'log10', 'empty', 'exists'],
];

/** An expression that cannot be read or run, with the expression and what is wrong. */
export class ExpressionError extends BotflowError {
  override name = 'ExpressionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_FLOW_EXPRESSION', message, options);
  }
}

type Compiled = (vars: Readonly<Record<string, unknown>>, scope: ExpressionScope) => unknown;
const compiled = new Map<string, Compiled>();

/** Compiles `source` (with or without its leading `=`); throws ExpressionError when it cannot be read. */
export function compileFlowExpression(source: string): Compiled {
  const body = source.startsWith('=') ? source.slice(1).trim() : source.trim();
  const cached = compiled.get(body);
  if (cached) return cached;
  for (const name of calledFunctions(body)) {
    if (!EXPRESSION_FUNCTIONS.includes(name)) {
      throw new ExpressionError(
        `unknown function ${name}() in "${body}"; functions: ${EXPRESSION_FUNCTIONS.join(', ')}`,
      );
    }
  }
  // The functions need the scope of each evaluation: they are bound per call through this slot.
  let current: Record<string, (...args: never[]) => unknown> = functionsFor({ now: 0, locale: 'en' });
  const extraFunctions = Object.fromEntries(
    Object.keys(current).map((name) => [name, (...args: never[]) => current[name]!(...args)]),
  );
  let fn: (data: unknown) => unknown;
  try {
    fn = compileExpression(body, {
      extraFunctions,
      // A variable nobody set yet reads as null (`exists(x)`, `empty(x)` test for it); dots reach into objects.
      customProp: (name: string, _get: unknown, data: Readonly<Record<string, unknown>>) =>
        readVar(data, name) ?? null,
    });
  } catch (error) {
    throw new ExpressionError(`cannot read "${body}": ${readableParseError((error as Error).message)}`);
  }
  const run: Compiled = (vars, scope) => {
    current = functionsFor(scope);
    const value = fn(vars);
    if (value instanceof Error) throw new ExpressionError(`"${body}" failed: ${value.message}`);
    return value;
  };
  compiled.set(body, run);
  return run;
}

/** Evaluates an expression over the variables. Throws ExpressionError when it cannot be read or fails. */
export function evaluateExpression(
  source: string,
  vars: Readonly<Record<string, unknown>>,
  scope: ExpressionScope,
): unknown {
  return compileFlowExpression(source)(vars, scope);
}

/** The `set:` values with their expressions evaluated (in order: a later one may read an earlier one). */
export function computeSet(
  set: Readonly<Record<string, unknown>>,
  vars: Readonly<Record<string, unknown>>,
  scope: ExpressionScope,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(set)) {
    out[name] = isExpression(value) ? evaluateExpression(value, { ...vars, ...out }, scope) : value;
  }
  return out;
}

/** Names called as functions in an expression, outside its double-quoted strings. */
function calledFunctions(body: string): string[] {
  const code = body.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/'(?:[^'\\]|\\.)*'/g, "''");
  return [...code.matchAll(/([A-Za-z_][\w]*)\s*\(/g)]
    .map((m) => m[1]!)
    .filter((name) => !['if', 'then', 'else', 'and', 'or', 'not', 'in', 'of', 'mod'].includes(name));
}

/** Jison's "Parse error on line 1: … ---^ Expecting 'a', 'b', got 'c'" as one line a designer can use. */
function readableParseError(message: string): string {
  const lines = message.split('\n');
  const caret = lines.find((l) => /^-*\^$/.test(l));
  const expecting = /Expecting (.*), got '(\w+)'/.exec(message);
  if (!caret || !expecting) return message.replace(/\s+/g, ' ');
  const got = expecting[2] === 'EndOfExpression' ? 'the end' : `'${expecting[2]}'`;
  return `at column ${caret.length}, expected ${expecting[1]!.replaceAll("'", '')} but found ${got}`;
}
