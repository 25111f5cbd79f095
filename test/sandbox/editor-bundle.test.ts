/**
 * The playground's editor bundle (scripts/build-editor.mjs): it builds from a clean tree, exports what the
 * page imports, and stays within its size budget, gzipped as the browser downloads it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script of the repository (no types)
import { buildEditor, EDITOR_BUNDLE } from '../../scripts/build-editor.mjs';
import { webChatPlugin } from '../../src/sandbox/web/plugin.ts';

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

  it('is served by the playground gzipped to browsers that accept it, and whole to others', async () => {
    await buildEditor(); // the generated asset the page serves (npm install builds it too)
    const app = Fastify();
    await app.register(webChatPlugin());
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const { port } = app.server.address() as { port: number };
      const url = `http://127.0.0.1:${port}/_web/editor.js`;
      const zipped = await fetch(url, { headers: { 'accept-encoding': 'gzip' } });
      expect(zipped.headers.get('content-encoding')).toBe('gzip');
      expect(Buffer.from(await zipped.arrayBuffer()).equals(readFileSync(EDITOR_BUNDLE))).toBe(true);
      const plain = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(Number(plain.headers.get('content-length'))).toBe(readFileSync(EDITOR_BUNDLE).length);
    } finally {
      await app.close();
    }
  }, 60_000);
});
