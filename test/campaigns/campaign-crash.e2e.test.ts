/**
 * A campaign survives a SIGKILL midway with nobody messaged twice: a bot process sends a campaign to the
 * sandbox (real HTTP, the platform's limits), is killed while it sends, and a new process on the same
 * database finishes it. Every person then has exactly one campaign message in their dialog, and the
 * sandbox never answered 429.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { openDatabase } from '../../src/store/database.ts';
import { startChild } from '../crash-load.ts';
import { eventually } from '../support/eventually.ts';
import { untilSqliteIdle } from '../support/idle.ts';
import { flows } from './fixtures.ts';

const FIXTURE = new URL('./fixtures/campaign-child.ts', import.meta.url).pathname;
const PEOPLE = 300;
let dir: string;
let sandbox: Sandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-campaign-crash-'));
  sandbox = await startSandbox({});
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

it(`finishes a campaign of ${PEOPLE} after a SIGKILL midway, nobody messaged twice`, {
  timeout: 300_000,
}, async () => {
  const path = join(dir, 'bot.db');
  const db = openDatabase({ path });
  const version = flows()[0]!.version;
  const users: number[] = [];
  const insert = db.prepare(
    'INSERT INTO sessions (conversation_key, flow_id, flow_version, status, state_value, snapshot, revision, ' +
      "step_instance, started_revision, chat_id, user_id, locale, started_at, updated_at) VALUES (?, 'welcome', ?, 'done', " +
      `'"done"', '{"status":"done","value":"done","context":{"vars":{},"retries":0}}', 3, 3, 1, ?, ?, 'en', 0, 0)`,
  );
  for (let i = 0; i < PEOPLE; i++) {
    const user = await sandbox.control.createUser({ first_name: `K${i}` });
    const { chat_id } = await sandbox.control.startBot(user.user_id);
    insert.run(`u:${user.user_id}`, version, chat_id, user.user_id);
    users.push(user.user_id);
  }
  const sent = db
    .prepare("SELECT count(*) FROM outbox WHERE status = 'done' AND args LIKE '%Spring offer K%'")
    .pluck();

  const first = await startChild(FIXTURE, [path, sandbox.baseUrl, sandbox.token, 'start']);
  const killAt = Math.floor(PEOPLE / 3) + Math.floor(Math.random() * (PEOPLE / 3));
  await eventually(`${killAt} offers sent`, () => (sent.get() as number) >= killAt, {
    timeoutMs: 30_000,
    everyMs: 10,
  }).catch((error: Error) => {
    throw new Error(
      `the campaign did not get going (${error.message}): ${JSON.stringify({
        campaigns: db.prepare('SELECT id, status, recipients, start_at FROM campaigns').all(),
        recipients: db
          .prepare('SELECT status, reason, count(*) AS n FROM campaign_recipients GROUP BY 1, 2')
          .all(),
        inbox: db.prepare('SELECT kind, status, error, count(*) AS n FROM inbox GROUP BY 1, 2, 3').all(),
        outbox: db.prepare('SELECT status, error, count(*) AS n FROM outbox GROUP BY 1, 2').all(),
      })}`,
    );
  });
  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));
  const atKill = sent.get() as number;
  expect(atKill).toBeLessThan(PEOPLE);

  const second = await startChild(FIXTURE, [path, sandbox.baseUrl, sandbox.token]);
  const status = db.prepare("SELECT status FROM campaigns WHERE name = 'spring'").pluck();
  await eventually(
    'the campaign done, every offer sent',
    () => status.get() === 'done' && (sent.get() as number) >= PEOPLE,
    120_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}: ${String(status.get())}, ${String(sent.get())} sent`);
  });
  await untilSqliteIdle(db); // nothing still on its way
  second.child.kill('SIGKILL');

  const perPerson: number[] = [];
  for (const userId of users) {
    const view = await sandbox.control.view(userId);
    perPerson.push(
      view.messages.filter((m) => m.from === 'bot' && String(m.text ?? '').startsWith('Spring offer K'))
        .length,
    );
  }
  expect(perPerson.filter((n) => n !== 1)).toEqual([]);
  expect(db.prepare('SELECT status, count(*) AS n FROM campaign_recipients GROUP BY status').all()).toEqual([
    { status: 'sent', n: PEOPLE },
  ]);
  expect(sandbox.requestLog.list().filter((e) => e.status === 429)).toEqual([]);
  db.close();
});
