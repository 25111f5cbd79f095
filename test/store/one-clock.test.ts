// One clock (issue 37): the times the pipeline records are read from the injected clock, not from the
// machine's. Each test gives a virtual clock set far from today (2001) and finds its time in the record:
// an inbox row's received_at on SQLite (its own connection and the writer thread), on PostgreSQL, the
// poller's marker, pruning's cutoff, and a dead letter's stamp in the scheduler's metrics.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { createEngine } from '../../src/engine/engine.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/database.ts';
import { postgresStore } from '../../src/store/postgres/engine-store.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';
import { sqliteStore } from '../../src/store/sqlite/engine-store.ts';
import { startWriterThread } from '../../src/store/sqlite/writer-thread.ts';
import { apiError, FakeApi, FakeClock } from '../dispatch/fakes.ts';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';

/** A virtual time no machine reads today: a record that has it took it from the injected clock. */
const VIRTUAL = Date.UTC(2001, 0, 2, 3, 4, 5);
const up = await postgresAvailable();

const update = (key: string) => ({ dedupeKey: key, conversationKey: 'u:1', payload: '{}' });

describe('the SQLite inbox stamps received_at with the injected clock', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-clock-'));
    dirs.push(dir);
    return join(dir, 'bot.db');
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("the engine's clock reaches its store's appends", async () => {
    const db = openDatabase({ path: fresh() });
    let time = VIRTUAL;
    const engine = createEngine({ db, flows: [], now: () => time });
    const [first] = await engine.store.append([update('a')]);
    time += 60_000; // the virtual clock moves: so does the next stamp
    const [second] = await engine.store.append([update('b')]);
    const inbox = new InboxStore(db);
    expect(inbox.get(first!.id!)?.receivedAt).toBe(VIRTUAL);
    expect(inbox.get(second!.id!)?.receivedAt).toBe(VIRTUAL + 60_000);
    // An entry that brings its own time keeps it.
    const [own] = await engine.store.append([{ ...update('c'), receivedAt: 42 }]);
    expect(inbox.get(own!.id!)?.receivedAt).toBe(42);
    db.close();
  });

  it('so do the appends committed on the writer thread (it reads no clock of its own)', async () => {
    const path = fresh();
    const db = openDatabase({ path });
    const writer = await startWriterThread({ path });
    try {
      const store = sqliteStore(db, { writer, now: () => VIRTUAL });
      const [row] = await store.append([update('a')]);
      expect(new InboxStore(db).get(row!.id!)?.receivedAt).toBe(VIRTUAL);
      const [direct] = await writer.append([update('b')], VIRTUAL + 1);
      expect(new InboxStore(db).get(direct!.id!)?.receivedAt).toBe(VIRTUAL + 1);
    } finally {
      await writer.close();
      db.close();
    }
  });

  it("pruning's cutoff is the injected clock's time less the retention", () => {
    const db = openDatabase({ path: fresh() });
    const inbox = new InboxStore(db, () => VIRTUAL);
    const [old, recent] = inbox.append([
      { ...update('old'), receivedAt: VIRTUAL - 10_000 },
      { ...update('recent'), receivedAt: VIRTUAL - 1_000 },
    ]);
    db.prepare("UPDATE inbox SET status = 'done'").run();
    // On the machine's clock both rows are 25 years old and both would go.
    expect(inbox.prune(5_000)).toBe(1);
    expect(inbox.get(old!.id!)).toBeUndefined();
    expect(inbox.get(recent!.id!)).toBeDefined();
    db.close();
  });
});

describe.skipIf(!up)('the PostgreSQL inbox stamps with the injected clock', () => {
  let server: { url: string; drop(): Promise<void> };
  let pg: PostgresDatabase;
  beforeAll(async () => {
    server = await freshDatabase();
    pg = await openPostgres({ url: server.url });
  });
  afterAll(async () => {
    await pg?.close();
    await server?.drop();
  });

  it("received_at of an append, and the poller's marker row, take the clock's time", async () => {
    const store = postgresStore(pg, { now: () => VIRTUAL });
    const [row] = await store.append([update('pg-a')]);
    const stamped = await pg.pool.query<{ at: string }>('SELECT received_at AS at FROM inbox WHERE id = $1', [
      row!.id,
    ]);
    expect(Number(stamped.rows[0]!.at)).toBe(VIRTUAL);

    const inbox = new PgInbox(pg.pool, () => VIRTUAL + 5);
    const [marked] = await inbox.appendWithMarker([update('pg-b')], 'test.marker', 17);
    const both = await pg.pool.query<{ received: string | number; updated: string | number }>(
      'SELECT (SELECT received_at FROM inbox WHERE id = $1) AS received, ' +
        "(SELECT updated_at FROM kv WHERE key = 'test.marker') AS updated",
      [marked!.id],
    );
    expect([Number(both.rows[0]!.received), Number(both.rows[0]!.updated)]).toEqual([
      VIRTUAL + 5,
      VIRTUAL + 5,
    ]);
  });
});

describe("the scheduler's records", () => {
  it("stamp a dead letter with the scheduler's clock", async () => {
    const fake = new FakeClock();
    const api = new FakeApi(fake);
    api.respond = () => {
      throw apiError(400, 'bad.request');
    };
    const scheduler = new Scheduler({
      api,
      now: fake.now,
      setTimer: fake.setTimer,
      clock: { now: () => VIRTUAL + fake.now() },
    });
    await fake.advance(1_234);
    const failed = scheduler.submit({ op: 'sendMessage', args: { chat_id: 1, text: 'x' } }).catch((e) => e);
    await fake.advance(10);
    expect(await failed).toBeInstanceOf(Error);
    // It failed at once, when the scheduler's clock read 1,234 ms past the virtual start.
    const [record] = scheduler.metrics().deadLetters.recent;
    expect(record).toMatchObject({ reason: 'rejected', at: VIRTUAL + 1_234 });
  });
});
