/**
 * `npm start` stopped with SIGTERM (as a process manager, `kill` or a container runtime stops it): npm 11
 * passes the signal to the `sh -c` running the script, which dies of it without passing it on, and the bot
 * ran on, orphaned. botflow started by npm now watches its parent and shuts down as on SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';

const BIN = fileURLToPath(new URL('../../bin/botflow.js', import.meta.url));
const FLOWS = fileURLToPath(new URL('../../flows', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'botflow-npm-start-'));
const orphans: number[] = [];
afterAll(() => {
  for (const pid of orphans) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `npm start` of a project whose start script is `node <botflow> run` (what `botflow run` resolves to). */
function npmStart(): { npm: ChildProcess; output: () => string } {
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ private: true, scripts: { start: `node ${JSON.stringify(BIN)} run --port 0` } }),
  );
  const npm = spawn('npm', ['start'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      BOTFLOW_FLOWS_DIR: FLOWS,
      npm_config_update_notifier: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  npm.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  return { npm, output: () => output };
}

describe('npm start', () => {
  it('stops the bot, gracefully, when npm gets SIGTERM', async () => {
    const { npm, output } = npmStart();
    const npmExited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
    // The JSON log lines carry the bot's own pid (npm's child is the shell, not the bot).
    const pid = await eventually(
      'botflow to be running',
      async () =>
        output().includes('to chat with your flows')
          ? Number(/"pid":(\d+)[^\n]*"msg":"botflow is running"/.exec(output())?.[1]) || undefined
          : undefined,
      60_000,
    );
    orphans.push(pid);
    expect(pid).not.toBe(npm.pid);
    npm.kill('SIGTERM');
    await npmExited;
    await eventually('the bot to stop', async () => (alive(pid) ? undefined : true), 30_000);
    expect(output()).toContain(
      'started by npm, and its parent process is gone (npm passes SIGTERM to its shell, which does not pass it on): stopping as on SIGTERM',
    );
    expect(output()).toContain('"msg":"stopped"');
  });
});
