#!/usr/bin/env node
// `npm create botflow [dir]`: runs `botflow init [dir]` of the botflow-engine package this one depends on.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const engine = dirname(createRequire(import.meta.url).resolve('botflow-engine/package.json'));
const result = spawnSync(
  process.execPath,
  [join(engine, 'bin', 'botflow.js'), 'init', ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
);
process.exitCode = result.status ?? 1;
