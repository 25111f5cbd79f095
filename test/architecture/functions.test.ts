/**
 * Small functions: no function in src/ is over 100 lines, as no file is over 400 (layers.test.ts). A
 * function here is any function declaration, method, accessor, constructor, arrow function or function
 * expression, measured from its first line to its last, both included, as the TypeScript compiler parses
 * it. A longer one is split into named parts that a reader can take one at a time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const LIMIT = 100;

interface LongFunction {
  /** `file name` (a function without a name of its own is named after the one around it: `<anonymous in outer>`). */
  readonly key: string;
  /** `file:line` of its first line. */
  readonly at: string;
  readonly lines: number;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|mts|mjs|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The name a function is known by: its own, the variable or property it is assigned to, or none. */
function ownName(node: ts.FunctionLikeDeclaration): string | undefined {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name && !ts.isComputedPropertyName(node.name)) return node.name.getText();
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)) &&
    !ts.isObjectBindingPattern(parent.name) &&
    !ts.isArrayBindingPattern(parent.name)
  ) {
    return parent.name.getText();
  }
  return undefined;
}

/** Its name, or `<anonymous in outer>` after the nearest named function around it. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  const own = ownName(node);
  if (own) return own;
  for (let up: ts.Node | undefined = node.parent; up; up = up.parent) {
    if (ts.isFunctionLike(up)) {
      const outer = ownName(up as ts.FunctionLikeDeclaration);
      if (outer) return `<anonymous in ${outer}>`;
    }
  }
  return '<anonymous>';
}

/** Every function of `text` (a file `file` relative to src/) over LIMIT lines. */
function longFunctions(file: string, text: string): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      const lines = last - first + 1;
      if (lines > LIMIT) found.push({ key: `${file} ${nameOf(fn)}`, at: `${file}:${first + 1}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const describeLong = (f: LongFunction) =>
  `${f.at} ${f.key.slice(f.key.indexOf(' ') + 1)} is ${f.lines} lines (over ${LIMIT}): split it into named parts`;

describe('the functions of src/', () => {
  const all = sources(SRC).flatMap((path) => longFunctions(relative(SRC, path), readFileSync(path, 'utf8')));

  it(`keeps every function at ${LIMIT} lines or fewer (split a longer one into named parts)`, () => {
    expect(all.map(describeLong)).toEqual([]);
  });

  it('finds a long function of any form (the check itself works)', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      // 100 lines: at the limit, passes.
      `export function declared() {\n${body(98)}\n}`,
      `export const arrow = () => {\n${body(99)}\n};`,
      `class Box {\n  method() {\n${body(99)}\n  }\n}`,
      `export function outer() {\n  return [1].map(() => {\n${body(99)}\n  });\n}`,
    ].join('\n');
    expect(longFunctions('flows/made-up.ts', text).map(describeLong)).toEqual([
      'flows/made-up.ts:101 arrow is 101 lines (over 100): split it into named parts',
      'flows/made-up.ts:203 method is 101 lines (over 100): split it into named parts',
      'flows/made-up.ts:305 outer is 103 lines (over 100): split it into named parts',
      'flows/made-up.ts:306 <anonymous in outer> is 101 lines (over 100): split it into named parts',
    ]);
  });
});
