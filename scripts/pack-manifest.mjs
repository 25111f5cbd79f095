// The package.json that npm packs: without the scripts that only this repository runs. `prepare` builds
// dist/ after `npm install` in a checkout; in the tarball it would name scripts/build.mjs, which is not
// there, and npm would list it in every project that installs botflow-engine ("install scripts not yet
// covered by allowScripts"). `prepack` (npm pack, npm publish) builds, then runs `strip`; `postpack`
// runs `restore`. A pack that failed in between leaves package.json.packing: `strip` restores it first.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
const saved = join(root, 'package.json.packing');
/** The scripts a package installed from the registry must not carry. */
const REPOSITORY_ONLY = ['prepare', 'prepack', 'postpack'];

const mode = process.argv[2];
if (mode === 'strip') {
  if (existsSync(saved)) renameSync(saved, manifest);
  const text = readFileSync(manifest, 'utf8');
  writeFileSync(saved, text);
  const pkg = JSON.parse(text);
  for (const name of REPOSITORY_ONLY) delete pkg.scripts?.[name];
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (mode === 'restore') {
  if (existsSync(saved)) renameSync(saved, manifest);
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exitCode = 2;
}
