import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = new URL('../../bin/botflow.js', import.meta.url).pathname;
let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'botflow-migrate-cli-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const botflow = (...args: string[]) =>
  run(process.execPath, [BIN, 'migrate', ...args], { cwd, env: { ...process.env, BOTFLOW_TOKEN: 'x' } });

it('botflow migrate applies pending migrations, and --status lists them', { timeout: 60_000 }, async () => {
  const db = join(cwd, 'bot.db');
  expect((await botflow('--status', '--db', db)).stdout).toContain('no database yet');
  const applied = await botflow('--db', db);
  expect(applied.stdout).toContain('applied 001_inbox.sql');
  expect(applied.stdout).toMatch(/schema version \d+, up to date/);
  expect((await botflow('--status', '--db', db)).stdout).toMatch(/^applied {2}001_inbox\.sql {2}\d{4}-/m);
});
