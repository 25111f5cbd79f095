// Builds the package: compiles src/ to dist/ (ESM JavaScript, .d.ts, source maps) with tsc, then copies
// the files tsc does not emit (the playground's assets, the writer thread's boot file) beside them. The
// playground's editor is bundled first (build-editor.mjs), into the assets.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildEditor } from './build-editor.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
// The playground's editor first: its bundle is one of the assets copied below.
const editorBytes = await buildEditor();
console.error(`built the playground's editor (${Math.round(editorBytes / 1024)} KB)`);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });

let copied = 0;
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (!name.endsWith('.ts')) {
      cpSync(path, join(dist, relative(src, path)));
      copied++;
    }
  }
};
walk(src);
console.error(`built dist/ (${copied} asset files copied)`);

// The example flows `botflow init --example` copies: the repository's flows/ stays their one source.
const examples = join(root, 'templates', 'examples');
rmSync(examples, { recursive: true, force: true });
cpSync(join(root, 'flows'), examples, {
  recursive: true,
  filter: (path) => !/\.(db|db-wal|db-shm)$|flow\.schema\.json$|\/registry\.ts$/.test(path),
});
console.error('copied flows/ to templates/examples/');
