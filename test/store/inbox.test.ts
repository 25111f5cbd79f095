import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.ts';
import { EngineInbox } from '../../src/store/engine-inbox.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import { KV_KEYS, KvStore } from '../../src/store/kv.ts';

let dir: string;
let db: Database.Database;
let inbox: InboxStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-inbox-'));
  db = openDatabase({ path: join(dir, 'bot.db') });
  inbox = new InboxStore(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const entry = (key: string, conversation: string | null = 'u:1', receivedAt = 1000) => ({
  dedupeKey: key,
  conversationKey: conversation,
  updateType: 'message_created',
  payload: `{"update_type":"message_created","k":"${key}","text":"Привет"}`,
  receivedAt,
});

describe('InboxStore', () => {
  it('appends in arrival order and ignores duplicates, within a batch and across batches', () => {
    const first = inbox.append([entry('a'), entry('b'), entry('a')]);
    expect(first.map((r) => r.inserted)).toEqual([true, true, false]);
    expect(first[1]!.id).toBeGreaterThan(first[0]!.id!);
    expect(inbox.append([entry('b'), entry('c')]).map((r) => r.inserted)).toEqual([false, true]);
    const pending = inbox.nextPending();
    expect(pending.map((r) => r.dedupeKey)).toEqual(['a', 'b', 'c']);
    expect(pending[0]).toMatchObject({ kind: 'update', status: 'pending', attempts: 0, error: null });
    expect(JSON.parse(pending[0]!.payload).text).toBe('Привет');
  });

  it('keeps other kinds of events for the engine', () => {
    const [result] = inbox.append([{ kind: 'timer', dedupeKey: 'timer:1', payload: '{}' }]);
    expect(inbox.get(result!.id!)).toMatchObject({ kind: 'timer', conversationKey: null, updateType: null });
  });

  it("is what the engine's inbox reads and settles, each row once", () => {
    const engine = new EngineInbox(db);
    const [a, b, c] = inbox.append([entry('a', 'u:1'), entry('b', 'u:2'), entry('c', 'u:1')]);
    expect(engine.pending(0, 10).map((r) => r.id)).toEqual([a!.id, b!.id, c!.id]);
    expect(engine.pending(a!.id!, 1).map((r) => r.id)).toEqual([b!.id]);
    expect(engine.pendingCount()).toBe(3);
    engine.countAttempt(b!.id!);
    expect(inbox.get(b!.id!)).toMatchObject({ status: 'pending', attempts: 1 });
    engine.settle(b!.id!, 'failed', 'bad flow', null, 5);
    engine.settle(b!.id!, 'done', null, null, 6); // settled once: the second settle changes nothing
    expect(inbox.get(b!.id!)).toMatchObject({
      status: 'failed',
      attempts: 2,
      error: 'bad flow',
      processedAt: 5,
    });
    // A whole batch in one statement: rows settled otherwise keep their status.
    engine.settleDone(a!.id!, c!.id!, 7);
    expect(inbox.counts()).toEqual({ pending: 0, done: 2, failed: 1, ignored: 0 });
    expect(inbox.nextPending()).toEqual([]);
  });

  it('fills in the conversation key when the engine learns it, and keeps an earlier one', () => {
    const engine = new EngineInbox(db);
    const [a, b] = inbox.append([entry('a', null), entry('b', 'u:2')]);
    engine.settle(a!.id!, 'ignored', 'no chat', 'u:9', 1);
    engine.settle(b!.id!, 'done', null, 'u:other', 1);
    expect(inbox.get(a!.id!)).toMatchObject({ status: 'ignored', error: 'no chat', conversationKey: 'u:9' });
    expect(inbox.get(b!.id!)?.conversationKey).toBe('u:2');
  });

  it("adds the engine's own events once, and lists a conversation's history newest first", () => {
    const engine = new EngineInbox(db);
    const timer = {
      kind: 'timer',
      dedupeKey: 'timer:1',
      conversationKey: 'u:1',
      payload: '{}',
      receivedAt: 1,
    };
    expect(engine.add(timer)).toBe(true);
    expect(engine.add(timer)).toBe(false);
    inbox.append([entry('a', 'u:1')]);
    expect(engine.history('u:1').map((r) => r.kind)).toEqual(['update', 'timer']);
    expect(engine.history('u:1', 1)).toHaveLength(1);
  });

  it('prunes settled rows past the retention but never pending ones', () => {
    const rows = inbox.append([
      entry('old-done', 'u:1', 1000),
      entry('old-pending', 'u:1', 1000),
      entry('new-done', 'u:1', 9000),
    ]);
    const engine = new EngineInbox(db);
    engine.settle(rows[0]!.id!, 'done', null, null, 1);
    engine.settle(rows[2]!.id!, 'done', null, null, 1);
    expect(inbox.prune(5000, 10_000)).toBe(1);
    expect(inbox.findByDedupeKey('old-done')).toBeUndefined();
    expect(inbox.findByDedupeKey('old-pending')?.status).toBe('pending');
    expect(inbox.findByDedupeKey('new-done')?.status).toBe('done');
  });

  it('prunes large backlogs in chunks', () => {
    const many = Array.from({ length: 4500 }, (_, i) => entry(`k${i}`));
    db.transaction(() => {
      const rows = inbox.append(many);
      new EngineInbox(db).settleDone(rows[0]!.id!, rows.at(-1)!.id!, 1);
    })();
    expect(inbox.prune(0, 2000)).toBe(4500);
    expect(inbox.counts().done).toBe(0);
  });

  it('keeps rows across a reopen of the file', () => {
    inbox.append([entry('a')]);
    db.close();
    db = openDatabase({ path: join(dir, 'bot.db') });
    inbox = new InboxStore(db);
    expect(inbox.findByDedupeKey('a')?.payload).toContain('Привет');
  });
});

describe('KvStore', () => {
  it('stores, replaces and deletes values', () => {
    const kv = new KvStore(db);
    expect(kv.get(KV_KEYS.pollingMarker)).toBeUndefined();
    kv.set(KV_KEYS.pollingMarker, '10');
    kv.set(KV_KEYS.pollingMarker, '11');
    expect(kv.get(KV_KEYS.pollingMarker)).toBe('11');
    expect(kv.delete(KV_KEYS.pollingMarker)).toBe(true);
    expect(kv.get(KV_KEYS.pollingMarker)).toBeUndefined();
  });
});
