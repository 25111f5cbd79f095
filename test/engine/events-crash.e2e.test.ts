/**
 * External events under SIGKILL, end to end (issue 29): a bot process whose HTTP door answers 200 once
 * `engine.events.send` has made the event durable (SQLite, the writer thread committing) is killed at
 * random moments while events pour in, some sent twice with one key as a retrying sender would. After a
 * last restart has drained the inbox: every acknowledged event is in it exactly once, none was lost, and
 * each person's count goes up by one per distinct event, without a gap or a repeat.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.ts';
import { crashSeed, loadUntilKilled, startChild } from '../crash-load.ts';

const FIXTURE = new URL('./fixtures/events-child.ts', import.meta.url).pathname;
const RUNS = 5;
const PEOPLE = 20;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-events-crash-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const event = (run: number, i: number) => ({
  body: JSON.stringify({
    name: 'ping',
    to: { userId: 7000 + (i % PEOPLE) },
    payload: { run, i },
    key: `r${run}.${i}`,
  }),
  id: `r${run}.${i}`,
});

it(`keeps every acknowledged event, once, across ${RUNS} SIGKILLs`, { timeout: 300_000 }, async () => {
  const dbPath = join(dir, 'bot.db');
  const acked: string[] = [];
  const { random } = crashSeed('events crash test');
  for (let run = 0; run < RUNS; run++) {
    const { child, port } = await startChild(FIXTURE, [dbPath]);
    acked.push(
      ...(await loadUntilKilled({
        port,
        child,
        secret: 'unused',
        update: (i) => event(run, i),
        connections: 8,
        duplicateEvery: 5,
        killAfterAcks: 100 + Math.floor(random() * 600),
        random,
      })),
    );
  }
  expect(acked.length).toBeGreaterThan(RUNS * 100);
  const before = openDatabase({ path: dbPath });
  const handledUnderLoad = before.prepare("SELECT count(*) FROM inbox WHERE status = 'done'").pluck().get();
  before.close();
  expect(handledUnderLoad).toBeGreaterThan(acked.length / 4); // the engine was at work when the kills came
  const { child } = await startChild(FIXTURE, [dbPath]);
  const db = openDatabase({ path: dbPath });
  try {
    const pending = db.prepare("SELECT count(*) FROM inbox WHERE status = 'pending'").pluck();
    const deadline = Date.now() + 60_000;
    while ((pending.get() as number) > 0) {
      if (Date.now() > deadline) throw new Error('the inbox was not drained after the last restart');
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');

    const count = db.prepare('SELECT count(*) FROM inbox WHERE dedupe_key = ?').pluck();
    expect(acked.filter((key) => count.get(`e:ping:${key}`) !== 1)).toEqual([]);
    expect(
      db.prepare("SELECT status, error, count(*) n FROM inbox WHERE status <> 'done' GROUP BY 1, 2").all(),
    ).toEqual([]);
    const stored = db
      .prepare("SELECT conversation_key AS k, count(*) AS n FROM inbox WHERE kind = 'event' GROUP BY 1")
      .all() as { k: string; n: number }[];
    const answers = db
      .prepare("SELECT args FROM outbox WHERE conversation_key = ? AND op = 'sendMessage' ORDER BY id")
      .pluck();
    for (const { k, n } of stored) {
      const texts = (answers.all(k) as string[]).map((a) => (JSON.parse(a) as { text: string }).text);
      expect({ k, texts }).toEqual({ k, texts: Array.from({ length: n }, (_, i) => `#${i + 1}`) });
    }
    expect(stored.length).toBe(PEOPLE);
  } finally {
    child.kill('SIGKILL');
    db.close();
  }
});
