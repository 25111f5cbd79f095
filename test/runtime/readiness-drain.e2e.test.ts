/**
 * A stopping process answers `/readyz` with 503 before its webhook receiver stops (issue 36), for
 * `shutdown.drainMs`: a load balancer that polls readiness stops sending it deliveries, while those that
 * still come are taken and answered. Ordering, not timing: after the first 503 of `/readyz`, a delivery
 * is still accepted and its person answered, and the process then exits cleanly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { freePort } from '../support/cluster-processes.ts';
import { eventually } from '../support/eventually.ts';
import { runBotflow } from './child.ts';

const FLOWS = fileURLToPath(new URL('../../flows', import.meta.url));

let dir: string;
let sandbox: Sandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-drain-'));
  sandbox = await startSandbox({ webhook: { firstRetryDelayMs: 200, maxRetryDelayMs: 1000 } });
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('readiness during a graceful stop', () => {
  it('answers /readyz 503 first, while deliveries are still taken and answered', async () => {
    const port = await freePort();
    const bot = runBotflow(['run'], {
      cwd: dir,
      env: {
        BOTFLOW_TOKEN: sandbox.token,
        BOTFLOW_BASE_URL: sandbox.baseUrl,
        BOTFLOW_MODE: 'webhook',
        BOTFLOW_WEBHOOK_URL: `http://127.0.0.1:${port}/botflow/updates`,
        BOTFLOW_WEBHOOK_SECRET: 'drain_secret_for_tests_1',
        BOTFLOW_WEBHOOK_HOST: '127.0.0.1',
        BOTFLOW_WEBHOOK_PORT: String(port),
        BOTFLOW_DATABASE_PATH: join(dir, 'bot.db'),
        BOTFLOW_FLOWS_DIR: FLOWS,
        BOTFLOW_SHUTDOWN_DRAIN_MS: '4000',
      },
    });
    await bot.waitFor(/"msg":"webhook subscription created"/);
    const readyz = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      return {
        code: response.status,
        body: (await response.json().catch(() => ({}))) as { status?: string },
      };
    };
    expect(await readyz()).toMatchObject({ code: 200, body: { status: 'ready' } });

    bot.child.kill('SIGTERM');
    // The engine's own answer (JSON with its status), not the receiver closing.
    await eventually('/readyz to answer 503', async () => {
      const { code, body } = await readyz();
      return code === 503 && body.status === 'not ready';
    });
    const ada = await sandbox.control.createUser({ first_name: 'Ada' });
    await sandbox.control.startBot(ada.user_id);
    await eventually(
      'Ada to be answered while the process drains',
      async () => (await sandbox.control.view(ada.user_id)).messages.some((m) => m.from === 'bot'),
      10_000,
    );
    expect(await bot.exited).toBe(0);
  }, 60_000);
});
