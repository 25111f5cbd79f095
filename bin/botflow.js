#!/usr/bin/env node
// The `botflow` command. From the published package it runs the compiled code in dist/. In a checkout of
// botflow itself (src/ beside dist/), it runs the TypeScript sources through tsx, so an edit is live
// without a build.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli.ts', import.meta.url);
let cli;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(source.href);
} else {
  cli = await import('../dist/cli.js');
}
process.exitCode = await cli.main(process.argv.slice(2));
