// A started engine with a writer thread: batches are planned on the main thread and committed on a second
// connection in a worker thread, in order; intake's appends go through the same thread. Real SQLite file,
// real worker thread.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEngine } from '../../src/engine/engine.ts';
import { InboxWriter } from '../../src/inbox/inbox-writer.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import { startWriterThread, type WriterThread } from '../../src/store/sqlite/writer-thread.ts';
import { eventually } from '../support/eventually.ts';
import { botStarted, collectFlow, press, signupFlow, textMessage } from './fixtures.ts';
import { EngineOnDisk, RecordingGateway, SECRET } from './harness.ts';

let h: EngineOnDisk | undefined;
let writer: WriterThread | undefined;
let applies: { mock: { calls: unknown[]; settledResults: { type: string; value: unknown }[] } };
afterEach(async () => {
  await h?.engine.stop({ waitMs: 0 });
  await writer?.close();
  await h?.close();
  h = undefined;
  writer = undefined;
});

async function started(
  flows: () => Parameters<typeof createEngine>[0]['flows'] & unknown[],
  extra: Parameters<EngineOnDisk['open']>[0] = {},
  writerOptions: { busyTimeoutMs?: number } = {},
): Promise<EngineOnDisk> {
  h = new EngineOnDisk(flows as never);
  writer = await startWriterThread({ path: h.path, synchronous: 'NORMAL', ...writerOptions });
  applies = vi.spyOn(writer, 'apply');
  await h.reopen({ writer, ...extra });
  h.engine.start();
  return h;
}

describe('writer thread', () => {
  it('runs many people interleaved exactly as on one connection', async () => {
    const people = Array.from({ length: 120 }, (_, i) => 100 + i);
    const run = async (threaded: boolean) => {
      const harness = threaded ? await started(() => [signupFlow], { batchSize: 16 }) : undefined;
      const x = harness ?? new EngineOnDisk(() => [signupFlow], { batchSize: 16 });
      if (!harness) x.engine.start();
      for (const id of people) x.deliver(botStarted(id, x.time));
      x.engine.notify();
      await x.engine.drain();
      for (const id of [...people].reverse()) x.deliver(textMessage(id, x.time, `name${id}`));
      x.engine.notify();
      await x.engine.drain();
      for (const id of people) {
        x.deliver(press(id, x.time, x.lastKeyboard(`u:${id}`).Pro!), textMessage(id, x.time, 'yes'));
      }
      x.engine.notify();
      await x.engine.drain();
      const texts = people.map((id) => x.texts(`u:${id}`));
      const statuses = x.inboxRows().map((r) => r.status);
      if (!harness) await x.close();
      return { texts, statuses };
    };
    const alone = await run(false);
    const threaded = await run(true);
    expect(threaded.texts).toEqual(alone.texts);
    expect(threaded.texts[0]).toEqual([
      'What is your name?',
      'Hello name100! Pick a plan:',
      'Plan: pro',
      'name100 on pro. Type yes to finish.',
      'Welcome aboard!',
    ]);
    expect(new Set(threaded.statuses)).toEqual(new Set(['done']));
    expect(applies.mock.calls.length).toBeGreaterThan(3); // the batches went through the thread
  });

  it('commits intake batches through the thread, in order, duplicates ignored', async () => {
    const x = await started(() => [collectFlow]);
    const accepted: number[][] = [];
    const intake = new InboxWriter({
      inbox: new InboxStore(x.db),
      commit: (entries) => writer!.append(entries),
      onAccepted: ({ ids }) => {
        accepted.push(ids);
        x.engine.notify();
      },
    });
    const updates = [
      textMessage(5, x.time, '/collect'),
      ...['a', 'b', 'c'].map((t) => textMessage(5, x.time, t)),
    ];
    const first = await Promise.all(updates.map((u) => intake.submit(updateEntry(JSON.stringify(u)))));
    const again = await intake.submit(updateEntry(JSON.stringify(updates[1])));
    expect(first.every((r) => r.inserted)).toBe(true);
    expect(again).toEqual({ inserted: false, id: null });
    expect(accepted.flat()).toEqual(first.map((r) => r.id));
    await eventually('three replies', () => x.texts('u:5').length === 3, 20_000);
    await x.engine.drain();
    expect(x.texts('u:5')).toEqual(['a', 'a,b', 'a,b,c']);
  });

  it('plans again what another process moved on, and fails only the write the database refuses', async () => {
    const x = await started(() => [collectFlow]);
    x.deliver(textMessage(1, x.time, '/collect'), textMessage(2, x.time, '/collect'));
    x.deliver(textMessage(1, x.time, 'one'));
    x.engine.notify();
    await x.engine.drain();

    // Another process answers u:1 meanwhile; u:2's next call is refused by the database.
    const other = openDatabase({ path: x.path, synchronous: 'NORMAL' });
    try {
      const engine = createEngine({ db: other, flows: [collectFlow], secret: SECRET, now: () => x.time });
      x.deliver(textMessage(1, x.time, 'two'));
      expect(engine.processPending().map((o) => o.status)).toEqual(['done']);
      other.exec(
        "CREATE TRIGGER refuse_bad AFTER INSERT ON outbox WHEN NEW.args LIKE '%bad%' " +
          "BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END",
      );
    } finally {
      other.close();
    }
    const failed: string[] = [];
    x.engine.on('error', (o) => failed.push(o.reason ?? ''));
    x.deliver(textMessage(1, x.time, 'three'), textMessage(2, x.time, 'bad'), textMessage(2, x.time, 'fine'));
    x.engine.notify();
    await x.engine.drain();

    expect(x.texts('u:1')).toEqual(['one', 'one,two', 'one,two,three']);
    expect(x.texts('u:2')).toEqual(['fine']);
    expect(failed).toEqual([expect.stringMatching(/refused by a trigger/)]);
    expect(x.inboxRows().map((r) => r.status)).toEqual([
      'done',
      'done',
      'done',
      'done',
      'done',
      'failed',
      'done',
    ]);
    expect(applies.mock.calls.length).toBeGreaterThanOrEqual(3);
  });

  it('retries a batch the database was too busy to take, losing nothing', async () => {
    const x = await started(() => [collectFlow], {}, { busyTimeoutMs: 20 });
    x.deliver(textMessage(3, x.time, '/collect'));
    x.engine.notify();
    await x.engine.drain();
    x.deliver(textMessage(3, x.time, 'x'), textMessage(3, x.time, 'y'));
    const blocker = new Database(x.path);
    blocker.exec('BEGIN IMMEDIATE'); // holds the write lock: the writer thread's commit fails with SQLITE_BUSY
    const tried = applies.mock.calls.length;
    x.engine.notify();
    // The batch's commit has been tried and has come back (refused) while the lock was held.
    const refused = await eventually('a commit tried under the lock to come back', () =>
      applies.mock.settledResults.slice(tried).find((r) => r.type !== 'incomplete'),
    );
    expect(refused.type).toBe('rejected');
    expect(String(refused.value)).toMatch(/SQLITE_BUSY|locked/i);
    expect(x.texts('u:3')).toEqual([]);
    blocker.exec('ROLLBACK');
    blocker.close();
    await eventually('the held batch committed', () => x.texts('u:3').length === 2, 20_000);
    await x.engine.drain();
    expect(x.texts('u:3')).toEqual(['x', 'x,y']);
  });

  it('goes on on its own connection when the writer thread stops', async () => {
    const x = await started(() => [collectFlow], { scheduler: new RecordingGateway() });
    x.deliver(textMessage(4, x.time, '/collect'), textMessage(4, x.time, 'a'));
    x.engine.notify();
    await x.engine.drain();
    await writer!.close();
    x.deliver(textMessage(4, x.time, 'b'));
    x.engine.notify();
    await eventually('the reply after the thread stopped', () => x.texts('u:4').length === 2, 20_000);
    expect(x.texts('u:4')).toEqual(['a', 'a,b']);
  });

  it('refuses processPending() while a batch is in flight, and says what to use', async () => {
    const x = await started(() => [collectFlow]);
    x.deliver(textMessage(6, x.time, '/collect'));
    const drained = x.engine.drain(); // sends the batch to the thread
    expect(() => x.engine.processPending()).toThrow(/await engine.drain\(\)/);
    await drained;
    expect(x.engine.processPending()).toEqual([]);
  });

  it('needs a database file', async () => {
    await expect(startWriterThread({ path: ':memory:' })).rejects.toThrow(/needs a database file/);
  });
});
