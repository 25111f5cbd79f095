/**
 * The durability promise under SIGKILL: a child process receives updates by webhook under load and is
 * killed at random moments; after each restart, every update that got a 200 is in the inbox exactly once.
 * Both ways of committing: on the receiver's connection, and on a writer thread.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.ts';

const FIXTURE = new URL('./fixtures/webhook-child.ts', import.meta.url).pathname;
const SECRET = 'crash_test_secret';
const RUNS = 10;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-crash-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function startChild(dbPath: string, mode: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dbPath, SECRET, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /READY (\d+)/.exec(out);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.once('exit', (code) => reject(new Error(`child exited early with ${code}: ${out}`)));
  });
}

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

/** Sends updates (with some duplicate deliveries) until the child dies; returns the mids acknowledged with 200. */
async function loadUntilKilled(run: number, port: number, child: ChildProcess): Promise<Set<string>> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 32 });
  const acked = new Set<string>();
  let alive = true;
  let next = 0;
  child.once('exit', () => {
    alive = false;
  });
  const killAfterAcks = 100 + Math.floor(Math.random() * 1500);
  const worker = async () => {
    while (alive) {
      // Every fifth delivery repeats an earlier one, as a platform retry would.
      const i = next % 5 === 4 && next > 10 ? Math.floor(Math.random() * next) : next;
      next++;
      try {
        const response = await pool.request({
          method: 'POST',
          path: '/webhook',
          headers: { 'content-type': 'application/json', 'x-svc-bot-api-secret': SECRET },
          body: update(run, i),
        });
        await response.body.dump();
        if (response.statusCode === 200) acked.add(`mid.r${run}.${i}`);
        if (acked.size >= killAfterAcks && alive) child.kill('SIGKILL');
      } catch {
        // The child died with this request in flight: not acknowledged, so no promise was made.
      }
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  await pool.destroy();
  return acked;
}

// `full`: the receiver commits on its own connection; `thread`: on a writer thread, as `botflow run` does.
it.each(['full', 'thread'])(
  `keeps every acknowledged update exactly once across ${RUNS} SIGKILLs (%s)`,
  { timeout: 600_000 },
  async (mode) => {
    const dbPath = join(dir, `bot-${mode}.db`);
    const allAcked: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      const { child, port } = await startChild(dbPath, mode); // also the restart after the previous kill
      const acked = await loadUntilKilled(run, port, child);
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
