/**
 * The playground's editor bundle (scripts/build-editor.mjs): it builds from a clean tree, exports what the
 * page imports, and stays within its size budget, gzipped as the browser downloads it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script of the repository (no types)
import { buildEditor } from '../../scripts/build-editor.mjs';

/** The budget: CodeMirror 6 with YAML, lint and completion fits well within it. */
const BUDGET_GZIPPED = 300 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'botflow-editor-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the playground editor's bundle", () => {
  it(`builds into one ES module of at most ${BUDGET_GZIPPED / 1024} KB gzipped that exports openEditor`, async () => {
    const outfile = join(dir, 'editor.js');
    await buildEditor(outfile);
    const bundle = readFileSync(outfile);
    const gzipped = gzipSync(bundle, { level: 9 }).length;
    console.log(`editor bundle: ${bundle.length} bytes, ${gzipped} gzipped`);
    expect(gzipped).toBeLessThanOrEqual(BUDGET_GZIPPED);
    expect(gzipped).toBeGreaterThan(10 * 1024); // CodeMirror is in it, not left as a bare import
    const text = bundle.toString('utf8');
    expect(text).not.toMatch(/from\s*["']@?codemirror/);
    expect(text).toMatch(/export\s*\{[^}]*openEditor/);
  }, 60_000);
});
