/**
 * SIGTERM while updates pour in and replies queue behind the rate limits: the process must stop cleanly
 * (exit code 0, which the hard-exit timer would turn into 1), and nothing accepted may be lost: every
 * inbox row is processed or still pending, and a second run processes the rest and sends what was queued.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { eventually } from '../support/eventually.ts';
import { runBotflow } from './child.ts';

const FLOWS = fileURLToPath(new URL('../../flows', import.meta.url));
const PEOPLE = 60;
const MESSAGES_EACH = 8;

let dir: string;
let sandbox: Sandbox;
let produced = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-shutdown-'));
  sandbox = await startSandbox();
  sandbox.onUpdate(() => {
    produced += 1;
  });
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

function counts(dbPath: string) {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const inbox = Object.fromEntries(
      (
        db.prepare('SELECT status, count(*) AS n FROM inbox GROUP BY status').all() as {
          status: string;
          n: number;
        }[]
      ).map((r) => [r.status, r.n]),
    ) as Record<string, number>;
    const outbox = Object.fromEntries(
      (
        db.prepare('SELECT status, count(*) AS n FROM outbox GROUP BY status').all() as {
          status: string;
          n: number;
        }[]
      ).map((r) => [r.status, r.n]),
    ) as Record<string, number>;
    const total = Object.values(inbox).reduce((a, b) => a + b, 0);
    return { inbox, outbox, total };
  } finally {
    db.close();
  }
}

describe('shutdown under load', () => {
  it('stops cleanly on SIGTERM and loses nothing accepted; the next start finishes the work', async () => {
    const dbPath = join(dir, 'bot.db');
    const env = {
      BOTFLOW_TOKEN: sandbox.token,
      BOTFLOW_BASE_URL: sandbox.baseUrl,
      BOTFLOW_DATABASE_PATH: dbPath,
      BOTFLOW_FLOWS_DIR: FLOWS,
      BOTFLOW_POLLING_TIMEOUT_SECONDS: '1',
    };
    const first = runBotflow(['run'], { cwd: dir, env });
    await first.waitFor(/botflow is running as/);

    const people = await Promise.all(
      Array.from({ length: PEOPLE }, (_, i) => sandbox.control.createUser({ first_name: `Person ${i}` })),
    );
    // Each person starts the bot (the sign-up flow asks questions), then writes several answers in a row.
    const traffic = Promise.all(
      people.map(async (person) => {
        await sandbox.control.startBot(person.user_id);
        for (let m = 0; m < MESSAGES_EACH; m++)
          await sandbox.control.sendText(person.user_id, 'dialog', `answer ${m}`);
      }),
    );

    // Mid-way: some events processed, more still arriving, replies queued behind 30/s.
    await eventually(
      'the first processed events',
      () => ((counts(dbPath).inbox.done ?? 0) >= 150 ? true : undefined),
      { timeoutMs: 90_000, everyMs: 100, tolerateThrows: true },
    );
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.stdout()).toContain('"msg":"stopped"');

    const afterFirst = counts(dbPath);
    expect(afterFirst.inbox.failed ?? 0).toBe(0);
    expect(
      (afterFirst.inbox.done ?? 0) + (afterFirst.inbox.ignored ?? 0) + (afterFirst.inbox.pending ?? 0),
    ).toBe(afterFirst.total);

    await traffic;
    const expected = produced;
    expect(expected).toBe(PEOPLE * (1 + MESSAGES_EACH));

    const second = runBotflow(['run'], { cwd: dir, env });
    await second.waitFor(/botflow is running as/);
    const settled = await eventually(
      'every update processed and every reply sent',
      () => {
        const now = counts(dbPath);
        const open = (now.outbox.pending ?? 0) + (now.outbox.sending ?? 0);
        return now.total === expected && (now.inbox.pending ?? 0) === 0 && open === 0 ? now : undefined;
      },
      { timeoutMs: 90_000, everyMs: 100, tolerateThrows: true },
    );
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    expect(settled.inbox.failed ?? 0).toBe(0);
    expect(settled.outbox.failed ?? 0).toBe(0);
    // Each update is one inbox row: none lost, none doubled by the restart.
    expect(settled.total).toBe(expected);
  }, 240_000);
});
