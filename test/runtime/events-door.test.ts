/**
 * Issue 29: the running bot takes external events. With `events` configured, `POST /events` answers on a
 * port of its own in polling mode (here: the embedded sandbox) and on the webhook receiver's port in
 * webhook mode; `bot.events.send` stores the same rows. Without `events`, nothing listens.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createBot } from '../../src/index.ts';
import { startSandbox } from '../../src/sandbox/index.ts';

const FLOWS = fileURLToPath(new URL('../../flows', import.meta.url));
const KEY = 'events_key_0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'botflow-events-door-'));
const quiet = pino({ level: 'silent' });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const post = (url: string, body: unknown, key = KEY) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

function eventRows(path: string): { conversation_key: string; dedupe_key: string }[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare("SELECT conversation_key, dedupe_key FROM inbox WHERE kind = 'event' ORDER BY id")
      .all() as never;
  } finally {
    db.close();
  }
}

describe('the running bot takes events', () => {
  it('in polling mode (the embedded sandbox) on a port of its own, and through bot.events', async () => {
    const database = join(dir, 'embedded.db');
    const bot = await createBot({
      config: {
        flows: { dir: FLOWS, watch: false },
        database: { path: database },
        sandbox: { port: 0 },
        events: { keys: [KEY], host: '127.0.0.1', port: 0 },
      },
      env: {},
      cwd: dir,
      logger: quiet,
    });
    try {
      const url = bot.addresses.events!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/events$/);
      const event = { name: 'order_shipped', to: { userId: 42 }, payload: { carrier: 'DHL' }, key: 'A-17' };
      const res = await post(url, event);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ accepted: true, conversation: 'u:42' });
      expect((await post(url, event, 'events_key_wrong_000000000')).status).toBe(401);
      // The TypeScript door stores the same row: the same name and key is a duplicate.
      expect(await bot.events.send(event)).toEqual({ accepted: false, id: null, conversation: 'u:42' });
      const other = await bot.events.send({ name: 'order_delivered', to: { chatId: -5, userId: 42 } });
      expect(other).toMatchObject({ accepted: true, conversation: 'c:-5:u:42' });
    } finally {
      expect((await bot.close()).clean).toBe(true);
    }
    expect(eventRows(database).map((r) => r.dedupe_key)).toEqual([
      'e:order_shipped:A-17',
      expect.stringMatching(/^e:order_delivered:[0-9a-f-]{36}$/),
    ]);
  }, 30_000);

  it('in webhook mode on the receiver port; nothing listens without events configured', async () => {
    const sandbox = await startSandbox({ limits: false });
    const port = await freePort();
    const database = join(dir, 'webhook.db');
    const bot = await createBot({
      config: {
        token: sandbox.token,
        baseUrl: sandbox.baseUrl,
        mode: 'webhook',
        webhook: { host: '127.0.0.1', port, url: `http://127.0.0.1:${port}/bot`, secret: 'webhook_secret' },
        flows: { dir: FLOWS, watch: false },
        database: { path: database },
        events: { keys: [KEY] },
      },
      env: {},
      cwd: dir,
      logger: quiet,
    });
    try {
      expect(bot.addresses.events).toBe(`http://127.0.0.1:${port}/events`);
      const res = await post(bot.addresses.events!, {
        name: 'order_placed',
        to: { userId: 9 },
        payload: { id: 'A-9' },
      });
      expect(await res.json()).toMatchObject({ accepted: true, conversation: 'u:9' });
      // The receiver's own route is untouched.
      const update = await fetch(`http://127.0.0.1:${port}/bot`, { method: 'POST', body: '{}' });
      expect(update.status).toBe(401);
    } finally {
      await bot.close();
    }
    const plain = await createBot({
      config: {
        token: sandbox.token,
        baseUrl: sandbox.baseUrl,
        mode: 'webhook',
        webhook: { host: '127.0.0.1', port, url: `http://127.0.0.1:${port}/bot`, secret: 'webhook_secret' },
        flows: { dir: FLOWS, watch: false },
        database: { path: database },
      },
      env: {},
      cwd: dir,
      logger: quiet,
    });
    try {
      expect(plain.addresses.events).toBeUndefined();
      const res = await post(`http://127.0.0.1:${port}/events`, {
        name: 'order_placed',
        to: { userId: 9 },
        payload: { id: 'A-9' },
      });
      expect(res.status).toBe(404);
    } finally {
      await plain.close();
      await sandbox.close();
    }
    expect(eventRows(database)).toHaveLength(1);
  }, 30_000);

  it('mounted (mountWebhook): bot.eventsEndpoint goes on your app beside the receiver', async () => {
    const sandbox = await startSandbox({ limits: false });
    const port = await freePort();
    const database = join(dir, 'mounted.db');
    const bot = await createBot({
      config: {
        token: sandbox.token,
        baseUrl: sandbox.baseUrl,
        mode: 'webhook',
        webhook: { url: `http://127.0.0.1:${port}/bot`, secret: 'webhook_secret' },
        flows: { dir: FLOWS, watch: false },
        database: { path: database },
        events: { keys: [KEY] },
      },
      env: {},
      cwd: dir,
      logger: quiet,
      mountWebhook: true,
    });
    const mine = Fastify();
    try {
      expect(bot.eventsEndpoint).toBeDefined();
      expect(bot.addresses.events).toBeUndefined(); // no port of its own
      await mine.register(bot.webhook!, { prefix: '/bot' });
      await mine.register(bot.eventsEndpoint!);
      const res = await mine.inject({
        method: 'POST',
        url: '/events',
        headers: { authorization: `Bearer ${KEY}` },
        payload: { name: 'order_placed', to: { userId: 4 }, payload: { id: 'M-1' } },
      });
      expect([res.statusCode, res.json().conversation]).toEqual([200, 'u:4']);
    } finally {
      await bot.close();
      await mine.close();
      await sandbox.close();
    }
    expect(eventRows(database)).toHaveLength(1);
  }, 30_000);
});
