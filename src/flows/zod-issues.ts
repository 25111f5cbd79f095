/**
 * zod's issues in words a flow author or an event sender can act on: a missing field says it is missing
 * and what it should be (zod says "Invalid option: expected one of …" for a missing enum field), a wrong
 * value says what was expected and what came. Shared by `botflow check` (a task's input) and the event
 * doors (an event's payload).
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);
const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'number',
  int: 'whole number',
  boolean: 'boolean (true or false)',
  array: 'list',
  object: 'object',
  date: 'date',
  null: 'null',
};

/** The value at `path` of `input`, or undefined when some part of the path is absent. */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** What the issue says the value should be: "a number", 'one of "a", "b"'; undefined when zod does not say. */
export function expectedOf(issue: Issue): string | undefined {
  if (issue.code === 'invalid_type') return article(TYPE_WORDS[issue.expected] ?? issue.expected);
  if (issue.code === 'invalid_value')
    return issue.values.length === 1
      ? JSON.stringify(issue.values[0])
      : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  return undefined;
}

/** What a value is, in words: "a text "x"", "a number 3", "a list". */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `a text ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'number' || typeof v === 'boolean') return `${article(typeof v)} ${v}`;
  return article(typeof v);
}

/** The issue as `{ missing, text }`: a missing required field, or what is wrong with the value given. */
export function issueText(issue: Issue, input: unknown): { missing: boolean; text: string } {
  const value = valueAt(input, issue.path);
  const expected = expectedOf(issue);
  const missing =
    value === undefined &&
    (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union');
  if (missing) return { missing, text: `missing: it is required${expected ? ` (${expected})` : ''}` };
  if (issue.code === 'unrecognized_keys')
    return { missing, text: `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}` };
  if (expected) return { missing, text: `expected ${expected}, got ${describeValue(value)}` };
  return { missing, text: issue.message };
}

/** A path as `a.b[0]` (empty for the root). */
export function pathText(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
}

/**
 * An event's payload checked by a schema, as problems a sender can act on (`payload.<field>: …`): a
 * missing required field says so, names the event and what to add; a wrong value says what was expected.
 */
export function payloadProblems(
  event: string,
  result: { success: boolean; error?: { issues: readonly Issue[] } },
  payload: unknown,
): string[] {
  if (result.success || !result.error) return [];
  return result.error.issues.map((issue) => {
    const at = `payload${pathText(issue.path)}`;
    const { missing, text } = issueText(issue, payload);
    if (!missing) return `${at}: ${text} (event "${event}")`;
    const field = String(issue.path.at(-1) ?? '');
    const expected = expectedOf(issue);
    return `${at}: missing, and event "${event}" requires it${expected ? ` (${expected})` : ''}: send the event with "${field}" in its payload`;
  });
}
