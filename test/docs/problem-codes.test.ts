/**
 * The problem codes docs/problems.md lists (a `- **`code`**: meaning` item each) are PROBLEM_CODES' keys,
 * with the same meanings; every code is made somewhere in src/ (no code is left for a check that went), and
 * docs/flows.md links the page. That every code src/ makes is in the list is checked by TypeScript:
 * Problem.code is a ProblemCode.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROBLEM_CODES } from '../../src/flows/problem-codes.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

describe('problem codes', () => {
  it('docs/problems.md lists every code of PROBLEM_CODES once, with its meaning, and nothing else', () => {
    const page = read('docs/problems.md');
    const documented = [...page.matchAll(/^- \*\*`([a-z-]+)`\*\*: (.+)$/gm)].map((m) => [m[1]!, m[2]!]);
    expect(documented.map(([code]) => code).sort()).toEqual(Object.keys(PROBLEM_CODES).sort());
    expect(Object.fromEntries(documented)).toEqual(PROBLEM_CODES);
  });

  it('every code is made by some check of src/', () => {
    const text = sourceFiles(join(root, 'src'))
      .filter((f) => !f.endsWith('problem-codes.ts'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const literals = new Set([...text.matchAll(/'([a-z][a-z-]*)'/g)].map((m) => m[1]!));
    // unknownName (lint-input.ts) makes `unknown-${kind}` for these kinds of registered names.
    for (const kind of ['effect', 'guard', 'validator']) literals.add(`unknown-${kind}`);
    expect(Object.keys(PROBLEM_CODES).filter((code) => !literals.has(code))).toEqual([]);
  });

  it('codes are kebab-case names, and the page that documents botflow check links the list', () => {
    for (const code of Object.keys(PROBLEM_CODES)) expect(code).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(read('docs/flows.md')).toContain('(problems.md)');
  });
});
