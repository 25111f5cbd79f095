/**
 * The durability promise under SIGKILL: a child process receives updates by webhook under load and is
 * killed at random moments; after each restart, every update that got a 200 is in the inbox exactly once.
 * Both ways of committing: on the receiver's connection, and on a writer thread.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.ts';
import { crashSeed, loadUntilKilled, startChild } from '../crash-load.ts';

const FIXTURE = new URL('./fixtures/webhook-child.ts', import.meta.url).pathname;
const SECRET = 'crash_test_secret';
const RUNS = 10;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-crash-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const update = (run: number, i: number) =>
  JSON.stringify({
    update_type: 'message_created',
    timestamp: Date.now(),
    message: {
      recipient: { chat_id: 1000 + (i % 50), chat_type: 'dialog' },
      sender: { user_id: 1000 + (i % 50), first_name: 'Ёж' },
      body: { mid: `mid.r${run}.${i}`, seq: 0, text: `сообщение ${i}` },
    },
  }).replace('"seq":0', '"seq":116328147937082782'); // beyond 2^53: must be stored digit for digit

it.each(['full', 'thread'])(
  `keeps every acknowledged update exactly once across ${RUNS} SIGKILLs (%s)`,
  { timeout: 600_000 },
  async (mode) => {
    const dbPath = join(dir, `bot-${mode}.db`);
    const allAcked: string[] = [];
    const { random } = crashSeed('intake crash test');
    for (let run = 0; run < RUNS; run++) {
      const { child, port } = await startChild(FIXTURE, [dbPath, SECRET, mode]); // also the restart after the previous kill
      const acked = await loadUntilKilled({
        port,
        child,
        secret: SECRET,
        update: (i) => ({ body: update(run, i), id: `mid.r${run}.${i}` }),
        connections: 32,
        duplicateEvery: 5,
        killAfterAcks: 100 + Math.floor(random() * 1500),
        random,
      });
      expect(acked.size).toBeGreaterThan(0);
      allAcked.push(...acked);
    }
    const db = openDatabase({ path: dbPath });
    try {
      const count = db.prepare('SELECT count(*) FROM inbox WHERE dedupe_key = ?').pluck();
      const missing = allAcked.filter((mid) => count.get(`message_created:${mid}`) !== 1);
      expect(missing).toEqual([]);
      const rows = db
        .prepare('SELECT count(*) AS n, count(DISTINCT dedupe_key) AS keys FROM inbox')
        .get() as {
        n: number;
        keys: number;
      };
      expect(rows.n).toBe(rows.keys);
      expect(rows.n).toBeGreaterThanOrEqual(allAcked.length);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const sample = db.prepare('SELECT payload FROM inbox ORDER BY id DESC LIMIT 1').pluck().get() as string;
      expect(sample).toContain('116328147937082782');
      expect(sample).toContain('сообщение');
    } finally {
      db.close();
    }
  },
);
