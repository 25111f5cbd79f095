import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { runBotflow } from './child.ts';

let dir: string;
let sandbox: Sandbox;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-run-'));
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('botflow run', () => {
  it('stops before starting anything when the configuration is invalid, naming the key and the fix', async () => {
    writeFileSync(join(dir, 'botflow.config.yaml'), 'mode: webhook\nwebhook:\n  port: 99999\n');
    try {
      const run = runBotflow(['run'], { cwd: dir, env: { BOTFLOW_TOKEN: 'some-token-1234' } });
      expect(await run.exited).toBe(2);
      expect(run.stderr()).toContain('botflow: invalid configuration (3 problems):');
      expect(run.stderr()).toContain('botflow.config.yaml:3:9: webhook.port: 99999 is too large: the maximum is 65535');
      expect(run.stderr()).toContain('set BOTFLOW_WEBHOOK_URL');
      expect(run.stderr()).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      rmSync(join(dir, 'botflow.config.yaml'));
    }
  });

  it('reports a refused token in plain words (exit code 3) and never prints the token', async () => {
    const wrong = 'wrong-token-0123456789abcdef';
    const run = runBotflow(['run', '--db', join(dir, 'bot.db')], {
      cwd: dir,
      env: { BOTFLOW_TOKEN: wrong, BOTFLOW_BASE_URL: sandbox.baseUrl },
    });
    expect(await run.exited).toBe(3);
    expect(run.stderr()).toContain(
      'botflow: self-check failed: the platform refused the token (verify.token): check BOTFLOW_TOKEN',
    );
    expect(run.stderr() + run.stdout()).not.toContain(wrong);
  });

  it('prints its options for --help', async () => {
    const run = runBotflow(['run', '--help'], { cwd: dir });
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toMatch(/--port <value>\s+sandbox\.port \(BOTFLOW_PORT\)/);
  });
});
