/**
 * Issue 28: media through ambiguous faults. Each of 30 people is sent a document and a photo (uploaded
 * first: POST /uploads, then the upload host, then POST /messages with the token), a picture given by URL
 * with a text and one without, through a fault-injecting proxy (test/fault-proxy.ts) that lets the sandbox
 * act and then loses ~30% of the answers of sends, upload slots and upload host POSTs (a 502, a 500, a
 * reset, or nothing until the client's timeout). Every person's chat must hold each message exactly once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { BotApi } from '../../src/client/client.ts';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { createEngine, type Engine } from '../../src/engine/engine.ts';
import type { FlowEvent } from '../../src/engine/step/contract.ts';
import { defineFlow, effect, say, uploadAndSend } from '../../src/engine/step/helpers.ts';
import { type PollingHandle, startPolling } from '../../src/intake/polling.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { openDatabase } from '../../src/store/database.ts';
import { type FaultProxy, SENDS, seededRandom, startFaultProxy, UPLOADS } from '../fault-proxy.ts';
import { eventually } from '../support/eventually.ts';
import { untilSqliteIdle } from '../support/idle.ts';

const PEOPLE = 30;
const PICTURE_URL = 'https://example.org/cat.png';
const EXPECTED = [
  'file: Here is your document.',
  'image: And a photo.',
  'image: A picture from the web.',
  'image: ',
];

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('media under ambiguous faults (issue 28)', () => {
  it('30 people each get one document, one photo and two pictures by URL, each exactly once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-media-faults-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const doc = join(dir, 'report.pdf');
    writeFileSync(doc, Buffer.from('%PDF-1.4 the report'));
    const photo = join(dir, 'photo.png');
    writeFileSync(photo, Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]));

    const sandbox: Sandbox = await startSandbox({
      attachmentProcessingMs: { image: 100, video: 100, audio: 100, file: 100 },
    });
    cleanup.push(() => sandbox.close());
    const seed = Number(process.env.BOTFLOW_FAULT_SEED) || 28; // BOTFLOW_FAULT_SEED=n tries another run
    const random = seededRandom(seed);
    const proxy: FaultProxy = await startFaultProxy(sandbox.baseUrl, random, {
      faulted: (method, path) => SENDS(method, path) || UPLOADS(method, path),
      modes: ['502', '500', 'reset', 'hang'],
      hangMs: 2_500, // past the client's 1.5 s timeout: a headers timeout, the request done
    });
    cleanup.push(() => proxy.close());

    const flow = defineFlow({
      id: 'media',
      triggers: [{ kind: 'bot_started' }],
      machine: setup({ types: { events: {} as FlowEvent } }).createMachine({
        initial: 'sent',
        states: {
          sent: {
            entry: [
              uploadAndSend({ type: 'file', source: doc }, { text: 'Here is your document.' }),
              uploadAndSend({ type: 'image', source: photo }, { text: 'And a photo.' }),
              say('A picture from the web.', {
                body: { attachments: [{ type: 'image', payload: { url: PICTURE_URL } }] },
              }),
              // Attachments only, no text.
              effect('sendMessage', { attachments: [{ type: 'image', payload: { url: PICTURE_URL } }] }),
            ],
          },
        },
      }),
    });

    const db: Database.Database = openDatabase({ path: join(dir, 'bot.db') });
    const api = new BotApi({ token: sandbox.token, baseUrl: proxy.url, timeoutMs: 1_500 });
    const scheduler = new Scheduler({ api });
    const engine: Engine = createEngine({
      db,
      flows: [flow],
      secret: 'media-faults-secret-0123456789',
      api,
      scheduler,
    });
    const direct = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
    const polling: PollingHandle = startPolling({
      api: direct,
      db,
      timeout: 1,
      onAccepted: () => engine.notify(),
    });
    cleanup.push(async () => {
      await polling.stop();
      await engine.stop({ waitMs: 0 });
      scheduler.close();
      db.close();
      await api.close();
      await direct.close();
    });
    engine.start();
    proxy.ambiguousShare(0.3);

    const people = await Promise.all(
      Array.from({ length: PEOPLE }, (_, i) => sandbox.control.createUser({ first_name: `M${i}` })),
    );
    const ids = people.map((p) => p.user_id);
    await Promise.all(ids.map((id) => sandbox.control.startBot(id)));

    const seen = async () =>
      Promise.all(
        ids.map(async (id) =>
          (await sandbox.control.view(id)).messages
            .filter((m) => m.from === 'bot')
            .map((m) => `${(m.attachments[0] as { type?: string } | undefined)?.type}: ${m.text ?? ''}`),
        ),
      );
    // Settled: every row sent (or given up), nothing left to send.
    const settled = db.prepare(
      "SELECT COUNT(*) AS n, SUM(status IN ('pending', 'sending')) AS open FROM outbox",
    ) as Database.Statement<[], { n: number; open: number | null }>;
    await eventually(
      'every row settled',
      () => {
        const { n, open } = settled.get()!;
        return n === PEOPLE * EXPECTED.length && !open ? true : undefined;
      },
      { timeoutMs: 120_000, everyMs: 250 },
    );
    await untilSqliteIdle(db); // inbox handled and tasks finished too: no duplicate is on its way
    const chats = await seen();
    const shown = chats.reduce((n, s) => n + s.length, 0);
    const duplicated = chats.reduce((n, s) => n + s.length - new Set(s).size, 0);
    const missing = chats.reduce((n, s) => n + EXPECTED.filter((e) => !s.includes(e)).length, 0);
    const copies = Object.fromEntries(
      EXPECTED.map((e) => [e, chats.reduce((n, s) => n + s.filter((x) => x === e).length, 0)]),
    );
    const outcomes = db.prepare('SELECT status, COUNT(*) AS n FROM outbox GROUP BY status').all();
    console.info(
      `media faults (seed ${seed}): ${proxy.stats.ambiguous} answers lost of ${proxy.stats.forwarded} forwarded ` +
        `${JSON.stringify(proxy.stats.lostBy)}; ${shown} messages seen, ${duplicated} duplicated, ${missing} missing; ` +
        `copies ${JSON.stringify(copies)}; outbox ${JSON.stringify(outcomes)}`,
    );
    for (const row of db.prepare("SELECT id, error FROM outbox WHERE status = 'failed'").all())
      console.info('failed row', row);
    expect(proxy.stats.lostBy['POST /messages'] ?? 0).toBeGreaterThan(10);
    expect(proxy.stats.lostBy['POST /_upload/…'] ?? 0).toBeGreaterThan(3);
    for (const s of chats) expect([...s].sort()).toEqual([...EXPECTED].sort());
    expect(outcomes).toEqual([{ status: 'done', n: PEOPLE * EXPECTED.length }]);
  }, 180_000);
});
