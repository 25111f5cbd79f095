// The session cache: sessions the engine committed are kept in memory (bounded), and a cached session
// that another writer moved on is detected by the revision compare-and-swap and read again, never failed.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.ts';
import { SessionCache } from '../../src/engine/lane/session-cache.ts';
import { openDatabase } from '../../src/store/database.ts';
import { botStarted, collectFlow, signupFlow, textMessage } from './fixtures.ts';
import { EngineOnDisk, SECRET } from './harness.ts';

function capturingLogger() {
  const lines: { msg: string; level: number }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).trim().split('\n')) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

let h: EngineOnDisk;
afterEach(async () => {
  await h?.close();
});

describe('session cache', () => {
  it('keeps the most recently used sessions up to its capacity', () => {
    const cache = new SessionCache(2);
    const entry = (revision: number) => ({ row: { revision } as never, armedTimers: undefined });
    cache.set('a', entry(1));
    cache.set('b', entry(1));
    expect(cache.get('a')?.row.revision).toBe(1); // a is now the most recent
    cache.set('c', entry(1));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(2);
    cache.set('a', entry(2));
    expect(cache.get('a')?.row.revision).toBe(2);

    const off = new SessionCache(0);
    off.set('a', entry(1));
    expect(off.get('a')).toBeUndefined();
  });

  it('plans again from the database when another process moved a cached session on', async () => {
    const { logger, lines } = capturingLogger();
    h = new EngineOnDisk(() => [collectFlow], { logger });
    h.deliver(textMessage(3, h.time, '/collect'), textMessage(3, h.time, 'one'));
    h.engine.processPending(); // u:3 is now cached by this engine

    // A second process on the same file handles the next message of u:3.
    const otherDb = openDatabase({ path: h.path, synchronous: 'NORMAL' });
    try {
      const other = createEngine({ db: otherDb, flows: [collectFlow], secret: SECRET, now: () => h.time });
      h.deliver(textMessage(3, h.time, 'two'));
      expect(other.processPending().map((o) => o.status)).toEqual(['done']);
    } finally {
      otherDb.close();
    }

    h.deliver(textMessage(3, h.time, 'three'));
    const outcomes = h.engine.processPending();
    expect(outcomes.map((o) => o.status)).toEqual(['done']);
    expect(h.texts('u:3')).toEqual(['one', 'one,two', 'one,two,three']);
    expect(h.inboxRows().filter((r) => r.status !== 'done')).toEqual([]);
    expect(lines.some((l) => /session moved on meanwhile/.test(l.msg))).toBe(true);
  });

  it('runs dialogs the same with the cache turned off and with a tiny one', async () => {
    for (const sessionCacheSize of [0, 3]) {
      h = new EngineOnDisk(() => [signupFlow], { sessionCacheSize, batchSize: 16 });
      const people = Array.from({ length: 20 }, (_, i) => 10 + i);
      for (const id of people) h.deliver(botStarted(id, h.time), textMessage(id, h.time, `name${id}`));
      h.engine.processPending();
      for (const id of people) {
        expect(h.texts(`u:${id}`)).toEqual(['What is your name?', `Hello name${id}! Pick a plan:`]);
      }
      expect(h.inboxRows().filter((r) => r.status !== 'done')).toEqual([]);
      await h.close();
    }
  });

  it('forgets a session support ended, so the next trigger starts afresh without a conflict', () => {
    const { logger, lines } = capturingLogger();
    h = new EngineOnDisk(() => [signupFlow], { logger });
    h.deliver(botStarted(4, h.time));
    h.engine.processPending();
    expect(h.engine.sessions.end('u:4')).toBe(true);
    h.advance(1000);
    h.deliver(botStarted(4, h.time));
    expect(h.engine.processPending().map((o) => o.status)).toEqual(['done']);
    expect(h.engine.sessions.get('u:4')).toMatchObject({ status: 'active', step: 'ask_name' });
    expect(lines.some((l) => /moved on meanwhile/.test(l.msg))).toBe(false);
  });
});
