// `npm run bench [-- name...]`: runs the named benchmarks (all when none is named), one after the other.

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''))
  .sort();
// Options (`--store postgres`, `--store=postgres`) go to every named benchmark; the rest are names.
const args = process.argv.slice(2);
const options: string[] = [];
const wanted: string[] = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (!arg.startsWith('-')) wanted.push(arg);
  else {
    options.push(arg);
    const next = args[i + 1];
    if (!arg.includes('=') && next !== undefined && !next.startsWith('-') && !available.includes(next)) {
      options.push(next);
      i++;
    }
  }
}
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length > 0 ? wanted : available) {
  console.log(`\n=== bench ${name} ===`);
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--expose-gc', join(here, `${name}.bench.ts`), ...options],
    {
      stdio: 'inherit',
    },
  );
  if (run.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
