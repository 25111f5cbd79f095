import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { runBotflow } from './child.ts';

const FLOWS = fileURLToPath(new URL('../../flows', import.meta.url));
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
      expect(run.stderr()).toContain(
        'botflow.config.yaml:3:9: webhook.port: 99999 is too large: the maximum is 65535',
      );
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

describe('botflow run stops with a plain message when', () => {
  it('the flows have errors (exit code 4, file:line:col)', async () => {
    const flows = join(dir, 'broken-flows');
    mkdirSync(flows);
    writeFileSync(
      join(flows, 'hello.flow.yaml'),
      'flow: hello\nstart: greet\nsteps:\n  greet:\n    type: mesage\n',
    );
    const run = runBotflow(['run', '--port', '0', '--flows', flows], { cwd: dir });
    expect(await run.exited).toBe(4);
    expect(run.stderr()).toMatch(
      /botflow: the flows in .*broken-flows have \d+ problem\(s\):\n\s+.*hello\.flow\.yaml:5:\d+: error: /,
    );
  });

  it('long polling is refused because a webhook subscription is active (exit code 1)', async () => {
    const api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
    await api.subscribe({ url: 'https://bot.example.com/hook' });
    try {
      const run = runBotflow(['run', '--db', join(dir, 'polling.db')], {
        cwd: dir,
        env: { BOTFLOW_TOKEN: sandbox.token, BOTFLOW_BASE_URL: sandbox.baseUrl, BOTFLOW_FLOWS_DIR: FLOWS },
      });
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toContain(
        'botflow: long polling is refused while a webhook subscription is active',
      );
      expect(run.stdout()).toContain('"msg":"stopped"');
    } finally {
      await api.unsubscribe({ url: 'https://bot.example.com/hook' });
      await api.close();
    }
  });
});
