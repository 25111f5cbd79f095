/**
 * `botflow run` in webhook mode against the sandbox: the subscription is created at start, deliveries are
 * answered after their inbox commit, and a SIGTERM while deliveries pour in loses nothing: what the
 * receiver acknowledged is processed or pending, what it refused while closing is redelivered by the
 * platform to the next run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { eventually } from '../support/eventually.ts';
import { runBotflow } from './child.ts';

const FLOWS = fileURLToPath(new URL('../../flows', import.meta.url));
const SECRET = 'webhook_secret_for_tests_123';
const PEOPLE = 40;
const MESSAGES_EACH = 5;

let dir: string;
let sandbox: Sandbox;
let produced = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-webhook-'));
  sandbox = await startSandbox({ webhook: { firstRetryDelayMs: 200, maxRetryDelayMs: 1000 } });
  sandbox.onUpdate(() => {
    produced += 1;
  });
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function inboxCounts(dbPath: string): { total: number; byStatus: Record<string, number> } {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT status, count(*) AS n FROM inbox GROUP BY status').all() as {
      status: string;
      n: number;
    }[];
    const byStatus = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    return { total: rows.reduce((a, r) => a + r.n, 0), byStatus };
  } finally {
    db.close();
  }
}

describe('botflow run in webhook mode', () => {
  it('subscribes, answers deliveries, and loses nothing when stopped mid-traffic', async () => {
    const port = await freePort();
    const dbPath = join(dir, 'bot.db');
    const url = `http://127.0.0.1:${port}/botflow/updates`;
    const env = {
      BOTFLOW_TOKEN: sandbox.token,
      BOTFLOW_BASE_URL: sandbox.baseUrl,
      BOTFLOW_MODE: 'webhook',
      BOTFLOW_WEBHOOK_URL: url,
      BOTFLOW_WEBHOOK_SECRET: SECRET,
      BOTFLOW_WEBHOOK_HOST: '127.0.0.1',
      BOTFLOW_WEBHOOK_PORT: String(port),
      BOTFLOW_DATABASE_PATH: dbPath,
      BOTFLOW_FLOWS_DIR: FLOWS,
    };
    const first = runBotflow(['run'], { cwd: dir, env });
    await first.waitFor(/botflow is running as .*\(webhook on http:\/\/127\.0\.0\.1:\d+\/botflow\/updates\)/);
    await first.waitFor(/"msg":"webhook subscription created"/);

    // One person first: the whole path (delivery → inbox → flow → reply) works.
    const ada = await sandbox.control.createUser({ first_name: 'Ada' });
    await sandbox.control.startBot(ada.user_id);
    const firstReply = await eventually(
      "the bot's first reply to Ada",
      async () => (await sandbox.control.view(ada.user_id)).messages.find((m) => m.from === 'bot')?.text,
    );
    expect(firstReply).toContain('What is your');

    const people = await Promise.all(
      Array.from({ length: PEOPLE }, (_, i) => sandbox.control.createUser({ first_name: `Person ${i}` })),
    );
    const traffic = Promise.all(
      people.map(async (person) => {
        await sandbox.control.startBot(person.user_id);
        for (let m = 0; m < MESSAGES_EACH; m++)
          await sandbox.control.sendText(person.user_id, 'dialog', `answer ${m}`);
      }),
    );
    await eventually(
      'events processed mid-traffic',
      () => ((inboxCounts(dbPath).byStatus.done ?? 0) >= 60 ? true : undefined),
      { timeoutMs: 90_000, everyMs: 100, tolerateThrows: true },
    );
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const afterFirst = inboxCounts(dbPath);
    expect(afterFirst.byStatus.failed ?? 0).toBe(0);

    await traffic;
    const expected = produced;
    expect(expected).toBe(1 + PEOPLE * (1 + MESSAGES_EACH));

    // The platform redelivers what the stopped receiver did not acknowledge.
    const second = runBotflow(['run'], { cwd: dir, env });
    await second.waitFor(/botflow is running as/);
    const settled = await eventually(
      'every delivery handled',
      () => {
        const now = inboxCounts(dbPath);
        return now.total === expected && (now.byStatus.pending ?? 0) === 0 ? now : undefined;
      },
      { timeoutMs: 90_000, everyMs: 100, tolerateThrows: true },
    );
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(settled.byStatus.failed ?? 0).toBe(0);
  }, 240_000);
});
