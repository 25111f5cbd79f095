// Bundles the extension (src/extension.ts and vscode-languageclient) into dist/extension.js, the file
// package.json's `main` names; `vscode` is the editor's own module.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
await build({
  entryPoints: [join(here, 'src', 'extension.ts')],
  outfile: join(here, 'dist', 'extension.js'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  sourcemap: true,
  logLevel: 'warning',
});
console.error(`built ${join('dist', 'extension.js')}`);
