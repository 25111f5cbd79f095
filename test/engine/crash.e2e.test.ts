/**
 * Exactly once under SIGKILL, end to end: a bot process (webhook and engine committing on a writer thread,
 * the next batch planned while one commits) is killed at random moments under load. After a last restart
 * has drained the inbox, every acknowledged update is in it once, every event was handled once, and each
 * person's answers count up without a gap or a repeat: nothing planned-but-uncommitted leaked, nothing
 * committed was planned again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.ts';
import { crashSeed, loadUntilKilled, startChild } from '../crash-load.ts';
import { eventually } from '../support/eventually.ts';

const FIXTURE = new URL('./fixtures/engine-child.ts', import.meta.url).pathname;
const SECRET = 'crash_test_secret';
const RUNS = 10;
const PEOPLE = 40;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-engine-crash-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const update = (run: number, i: number) =>
  JSON.stringify({
    update_type: 'message_created',
    timestamp: Date.now(),
    message: {
      timestamp: Date.now(),
      recipient: { chat_id: 5000 + (i % PEOPLE), chat_type: 'dialog' },
      sender: { user_id: 5000 + (i % PEOPLE), first_name: 'Ёж' },
      body: { mid: `mid.r${run}.${i}`, seq: 1, text: `сообщение ${i}` },
    },
  });

it(`handles every acknowledged update exactly once across ${RUNS} SIGKILLs`, {
  timeout: 600_000,
}, async () => {
  const dbPath = join(dir, 'bot.db');
  const allAcked: string[] = [];
  const { random } = crashSeed('engine crash test');
  for (let run = 0; run < RUNS; run++) {
    const { child, port } = await startChild(FIXTURE, [dbPath, SECRET]);
    allAcked.push(
      ...(await loadUntilKilled({
        port,
        child,
        secret: SECRET,
        update: (i) => ({ body: update(run, i), id: `mid.r${run}.${i}` }),
        connections: 16,
        duplicateEvery: 7,
        killAfterAcks: 200 + Math.floor(random() * 1500),
        random,
      })),
    );
  }
  const before = openDatabase({ path: dbPath });
  const handledUnderLoad = before.prepare("SELECT count(*) FROM inbox WHERE status = 'done'").pluck().get();
  before.close();
  expect(handledUnderLoad).toBeGreaterThan(allAcked.length / 4); // the engine was at work when the kills came
  // A last start without load finishes what the kills left pending.
  const { child } = await startChild(FIXTURE, [dbPath, SECRET]);
  const db = openDatabase({ path: dbPath });
  try {
    const pending = db.prepare("SELECT count(*) FROM inbox WHERE status = 'pending'").pluck();
    await eventually(
      'the inbox drained after the last restart',
      () => (pending.get() as number) === 0,
      60_000,
    );
    child.kill('SIGKILL');

    const count = db.prepare('SELECT count(*) FROM inbox WHERE dedupe_key = ?').pluck();
    expect(allAcked.filter((mid) => count.get(`message_created:${mid}`) !== 1)).toEqual([]);
    expect(
      db.prepare("SELECT status, error, count(*) n FROM inbox WHERE status <> 'done' GROUP BY 1, 2").all(),
    ).toEqual([]);

    const events = db
      .prepare('SELECT conversation_key AS k, count(*) AS n FROM inbox GROUP BY conversation_key')
      .all() as { k: string; n: number }[];
    const answers = db
      .prepare("SELECT args FROM outbox WHERE conversation_key = ? AND op = 'sendMessage' ORDER BY id")
      .pluck();
    for (const { k, n } of events) {
      const texts = (answers.all(k) as string[]).map((a) => (JSON.parse(a) as { text: string }).text);
      expect({ k, texts }).toEqual({ k, texts: Array.from({ length: n }, (_, i) => `#${i + 1}`) });
    }
    expect(events.length).toBe(PEOPLE);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    child.kill('SIGKILL');
    db.close();
  }
});
