// Bundles the playground's flow editor (src/sandbox/web/editor/, CodeMirror 6) into one ES module,
// src/sandbox/web/assets/editor.js, which the page imports when "Edit" is pressed. Generated, not
// committed: `npm install` (prepare) and `npm pack` (prepack) run scripts/build.mjs, which runs this
// first, so a checkout's `npm start` and the packed dist/ both serve it. Run on its own:
// `node scripts/build-editor.mjs`.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The bundle's entry and where it is written. */
export const EDITOR_ENTRY = join(root, 'src', 'sandbox', 'web', 'editor', 'editor.ts');
export const EDITOR_BUNDLE = join(root, 'src', 'sandbox', 'web', 'assets', 'editor.js');

/** Builds the bundle into `outfile`; resolves with its size in bytes. */
export async function buildEditor(outfile = EDITOR_BUNDLE) {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [EDITOR_ENTRY],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  return Object.values(result.metafile.outputs)[0].bytes;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const bytes = await buildEditor();
  console.error(`built the playground's editor: ${EDITOR_BUNDLE} (${Math.round(bytes / 1024)} KB)`);
}
