/**
 * A step kind has one home (src/flows/kinds/<kind>/): nothing outside a kind's folder and the kinds'
 * registry asks a step what type it is. A comparison of a step's `type` with a kind's name
 * (`step.type === 'input'`, `s.type !== 'menu'`) elsewhere means a kind's behaviour leaked out of its
 * module: ask the step's kind (`kindOf(step)`) for it instead, through the contract
 * (src/flows/kinds/contract.ts). A step is recognised by the names the code gives steps (`step`, `s`,
 * `st`, `called`, `e.step`); an event's or a record's `type` is not a step's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KIND_NAMES } from '../../src/flows/kinds/registry.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const HOME = 'flows/kinds/';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const kinds = KIND_NAMES.join('|');
/** `step.type === 'menu'`, `'input' !== s.type`, `called?.type === 'call'`… */
const COMPARISON = new RegExp(
  `(?:\\b(?:step|s|st|called|callee|e\\.step)\\??\\.type\\s*[!=]==?\\s*'(?:${kinds})')|(?:'(?:${kinds})'\\s*[!=]==?\\s*\\b(?:step|s|st|called|callee|e\\.step)\\??\\.type\\b)`,
  'g',
);

/** `['input', 'menu'].includes(step.type)`: a list of kinds asked of a step. */
const LISTED = /\.includes\(\s*(?:step|s|st|called|callee|e\.step)\??\.type\s*\)/g;

/** The comparisons of step types in `text`. */
const comparisons = (text: string) =>
  (text.match(COMPARISON)?.length ?? 0) + (text.match(LISTED)?.length ?? 0);

describe('step kinds', () => {
  it('recognises a comparison of a step type, not of an event type', () => {
    expect(comparisons("if (step.type === 'input') x(); if (s?.type !== 'menu') y();")).toBe(2);
    expect(comparisons("if ('wait' === st.type) z(); called?.type === 'call'")).toBe(2);
    expect(comparisons("if (event.type === 'message' || record.type === 'end') z();")).toBe(0);
    expect(comparisons("if (['input', 'menu'].includes(step.type)) z();")).toBe(1);
  });

  it('are compared by type only in their own folder and the registry', () => {
    const found: Record<string, number> = {};
    for (const file of sources(SRC)) {
      const path = relative(SRC, file);
      if (path.startsWith(HOME)) continue;
      const n = comparisons(readFileSync(file, 'utf8'));
      if (n > 0) found[path] = n;
    }
    expect(found, "ask the step's kind (kindOf) instead: src/flows/kinds/contract.ts").toEqual({});
  });
});
