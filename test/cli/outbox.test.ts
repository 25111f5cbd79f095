/** `botflow outbox`: dead letters listed, sent again or given up, on a real database file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { command } from '../../src/cli/outbox-command.ts';
import { openDatabase } from '../../src/store/database.ts';
import { OutboxStore } from '../../src/store/outbox.ts';
import { copyFromSqlite } from '../../src/store/postgres/copy-from-sqlite.ts';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const pgUp = await postgresAvailable();

let dir: string;
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

function database(): string {
  dir = mkdtempSync(join(tmpdir(), 'botflow-outbox-'));
  const path = join(dir, 'bot.db');
  const db = openDatabase({ path });
  const outbox = new OutboxStore(db);
  for (const seq of [1, 2, 3]) {
    outbox.insert({
      conversationKey: 'u:7',
      revision: 1,
      seq,
      orderKey: 'chat:7',
      chatId: 7,
      kind: 'api',
      op: 'sendMessage',
      args: JSON.stringify({ chat_id: 7, text: `m${seq}` }),
      ref: null,
      priority: 'reply',
      createdAt: 1,
    });
    outbox.claim(seq, 2);
    outbox.finish(
      seq,
      seq === 3 ? { status: 'done' } : { status: 'failed', error: 'network: 3 attempts' },
      3,
    );
  }
  db.close();
  return path;
}

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => out.push(line));
  vi.spyOn(console, 'error').mockImplementation((line: string) => err.push(line));
  const code = await command.run(args);
  vi.restoreAllMocks();
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function statuses(path: string): string[] {
  const db = openDatabase({ path });
  const rows = db.prepare('SELECT status FROM outbox ORDER BY id').all() as Array<{ status: string }>;
  db.close();
  return rows.map((r) => r.status);
}

describe('botflow outbox', () => {
  it('lists the failed calls with their errors, newest first', async () => {
    const path = database();
    const { code, out } = await run(['list', '--db', path]);
    expect(code).toBe(0);
    expect(out).toMatch(/^2\t.*\tu:7\tsendMessage\t1 attempt\(s\)\tnetwork: 3 attempts\n1\t/);
    expect(out).toContain('2 failed call(s)');
    const json = JSON.parse((await run(['list', '--json', '--db', path])).out) as Array<{ id: number }>;
    expect(json.map((r) => r.id)).toEqual([2, 1]);
  });

  it('puts chosen calls back in line, and drops the rest', async () => {
    const path = database();
    expect(await run(['retry', '2', '--db', path])).toMatchObject({
      code: 0,
      out: '1 call(s) put back in line',
    });
    expect(statuses(path)).toEqual(['failed', 'pending', 'done']);
    expect(await run(['drop', '--all', '--db', path])).toMatchObject({ code: 0, out: '1 call(s) dropped' });
    expect(statuses(path)).toEqual(['dropped', 'pending', 'done']);
  });

  it('says what to give when ids are missing or wrong', async () => {
    const path = database();
    expect((await run(['retry', '--db', path])).code).toBe(2);
    expect((await run(['retry', 'x', '--db', path])).err).toContain('give the ids to retry');
    expect((await run(['resend', '--db', path])).err).toContain('unknown action "resend"');
    expect((await run(['retry', '99', '--db', path])).code).toBe(1); // nothing failed under that id
  });

  it.skipIf(!pgUp)('does the same on PostgreSQL (--database-url)', async () => {
    const path = database();
    const target = await migratedDatabase();
    try {
      const pg = await openPostgres({ url: target.url });
      const sqlite = new SQLite(path, { readonly: true });
      await copyFromSqlite(sqlite, pg.pool);
      sqlite.close();
      const pgStatuses = async () =>
        (await pg.pool.query('SELECT status FROM outbox ORDER BY id')).rows.map((r) => r.status);
      const url = ['--database-url', target.url];
      const listed = await run(['list', ...url]);
      expect(listed.out).toMatch(/^2\t.*\tu:7\tsendMessage\t1 attempt\(s\)\tnetwork: 3 attempts\n1\t/);
      expect(await run(['retry', '2', ...url])).toMatchObject({ code: 0, out: '1 call(s) put back in line' });
      expect(await pgStatuses()).toEqual(['failed', 'pending', 'done']);
      expect(await run(['drop', '--all', ...url])).toMatchObject({ code: 0, out: '1 call(s) dropped' });
      expect(await pgStatuses()).toEqual(['dropped', 'pending', 'done']);
      expect((await run(['retry', '99', ...url])).code).toBe(1);
      await pg.close();
    } finally {
      await target.drop();
    }
  });
});
