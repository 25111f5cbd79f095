/**
 * Issue 29: the events endpoint (`POST /events`, `POST /events/mini-app`) on a real fastify listener on
 * 127.0.0.1, storing through the runtime's sender into a real inbox: a SQLite file and PostgreSQL. Refusals
 * (wrong or missing key, bad body, too large, invalid event, a name a mini-app may not send, tampered or old
 * initData) store nothing; a duplicate key stores one row. initData is signed here with node:crypto.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildEventsServer, eventsEndpoint } from '../../src/intake/events-endpoint.ts';
import { openDatabase } from '../../src/store/database.ts';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';
import { appEventSender } from '../support/event-sender.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const KEY = 'k_current_0123456789abcdef';
const OLD_KEY = 'k_previous_0123456789abcdef';
const TOKEN = 'sandbox-token-for-events-endpoint-0000'; // not a real one
const ORIGIN = 'https://shop.example.com';
const MAX_BODY = 4096;

/** The platform's signature, written out: secret = HMAC(key "WebAppData", token); hash over sorted lines. */
function initData(fields: Record<string, string>, token = TOKEN): string {
  const secret = createHmac('sha256', 'WebAppData').update(token).digest();
  const lines = Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  const hash = createHmac('sha256', secret).update(lines.join('\n')).digest('hex');
  return new URLSearchParams({ ...fields, hash }).toString();
}
const person = (extra: Record<string, string> = {}) => ({
  auth_date: String(Math.floor(Date.now() / 1000) - 30),
  query_id: 'AAQ-1',
  user: JSON.stringify({ id: 7, first_name: 'Ann' }),
  ...extra,
});

interface Inbox {
  rows(): Promise<{ kind: string; conversation_key: string; dedupe_key: string; payload: string }[]>;
  commit: Parameters<typeof appEventSender>[0];
  clear(): Promise<void>;
  close(): Promise<void>;
}

async function sqliteInbox(): Promise<Inbox> {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-events-'));
  const db = openDatabase({ path: join(dir, 'bot.db') });
  return {
    rows: async () =>
      db
        .prepare(
          "SELECT kind, conversation_key, dedupe_key, payload FROM inbox WHERE kind = 'event' ORDER BY id",
        )
        .all() as never,
    commit: { db, conversationKey: 'user-in-chat' },
    clear: async () => void db.prepare('DELETE FROM inbox').run(),
    close: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresInbox(): Promise<Inbox> {
  const fresh = await migratedDatabase();
  const pg = await openPostgres({ url: fresh.url });
  const inbox = new PgInbox(pg.pool);
  return {
    rows: async () =>
      (
        await pg.pool.query(
          "SELECT kind, conversation_key, dedupe_key, payload FROM inbox WHERE kind = 'event' ORDER BY id",
        )
      ).rows,
    commit: { commit: (entries) => inbox.append(entries), conversationKey: 'user-in-chat' },
    clear: async () => void (await pg.pool.query('DELETE FROM inbox')),
    close: async () => {
      await pg.close();
      await fresh.drop();
    },
  };
}

const pgUp = await postgresAvailable();

describe.each([
  ['SQLite', sqliteInbox, true],
  ['PostgreSQL', postgresInbox, pgUp],
] as const)('the events endpoint on %s', (_name, open, available) => {
  let inbox: Inbox;
  let app: FastifyInstance;
  let base: string;
  const logged: string[] = [];

  beforeAll(async () => {
    if (!available) return;
    inbox = await open();
    const logger = pino(
      { level: 'trace' },
      new Writable({
        write(chunk, _encoding, done) {
          logged.push(String(chunk));
          done();
        },
      }),
    );
    app = buildEventsServer({
      sender: appEventSender({ ...inbox.commit, logger }),
      keys: [KEY, OLD_KEY],
      maxBody: MAX_BODY,
      miniApp: { token: TOKEN, events: ['order_form'], maxAgeSeconds: 600, origins: [ORIGIN] },
      logger,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    if (!available) return;
    await app.close();
    await inbox.close();
  });
  beforeEach(async () => {
    if (available) await inbox.clear();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const event = { name: 'order_shipped', to: { userId: 42 }, payload: { carrier: 'DHL' } };
  const bearer = (key = KEY) => ({ authorization: `Bearer ${key}` });

  it.runIf(available)('accepts an event with a valid key (either of two) and stores it', async () => {
    const res = await post('/events', event, bearer());
    expect(res.status).toBe(200);
    const receipt = await res.json();
    expect(receipt).toMatchObject({ accepted: true, conversation: 'u:42' });
    expect(receipt.id).toBeGreaterThan(0);
    const rotated = await post('/events', { ...event, to: { chatId: -7, userId: 42 } }, bearer(OLD_KEY));
    expect(await rotated.json()).toMatchObject({ accepted: true, conversation: 'c:-7:u:42' });
    const rows = await inbox.rows();
    expect(rows.map((r) => r.conversation_key)).toEqual(['u:42', 'c:-7:u:42']);
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({
      name: 'order_shipped',
      payload: { carrier: 'DHL' },
      userId: 42,
    });
  });

  it.runIf(available)('refuses a wrong, a missing or a non-bearer key alike, storing nothing', async () => {
    const answers = await Promise.all([
      post('/events', event, bearer('k_wrong_0123456789abcdef00')),
      post('/events', event, bearer(`${KEY}x`)),
      post('/events', event),
      post('/events', event, { authorization: `Basic ${KEY}` }),
    ]);
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1); // never says which part was wrong
    expect(bodies[0].error.code).toBe('BOTFLOW_EVENTS_UNAUTHORIZED');
    expect(answers[0]!.headers.get('www-authenticate')).toBe('Bearer');
    expect(await inbox.rows()).toEqual([]);
  });

  it.runIf(available)(
    'refuses bad JSON, another content type and a body that is no object with 400',
    async () => {
      const bad = await post('/events', '{"name": "x",', bearer());
      const text = await fetch(`${base}/events`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', ...bearer() },
        body: JSON.stringify(event),
      });
      const array = await post('/events', [event], bearer());
      for (const res of [bad, text, array]) {
        expect(res.status).toBe(400);
        expect((await res.json()).error.code).toBe('BOTFLOW_EVENTS_REQUEST_INVALID');
      }
      expect(await inbox.rows()).toEqual([]);
    },
  );

  it.runIf(available)('refuses a body larger than maxBody with 413', async () => {
    const res = await post('/events', { ...event, payload: { note: 'x'.repeat(MAX_BODY) } }, bearer());
    expect(res.status).toBe(413);
    const body = await res.json();
    expect(body.error).toMatchObject({ code: 'BOTFLOW_EVENTS_TOO_LARGE' });
    expect(body.error.message).toContain(String(MAX_BODY));
    expect(await inbox.rows()).toEqual([]);
  });

  it.runIf(available)('answers 422 with every problem of an invalid event', async () => {
    const res = await post('/events', { name: '1st', to: { userId: 'ann' }, key: '' }, bearer());
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.error.code).toBe('BOTFLOW_EVENT_INVALID');
    expect(body.error.problems).toHaveLength(3);
    expect(body.error.problems.join('\n')).toMatch(/name "1st"[\s\S]*to\.userId[\s\S]*key/);
    expect(await inbox.rows()).toEqual([]);
  });

  it.runIf(available)(
    'keeps one row for a repeated key (in the body or the Idempotency-Key header)',
    async () => {
      const first = await (await post('/events', { ...event, key: 'order-9' }, bearer())).json();
      const again = await (
        await post('/events', event, { ...bearer(), 'idempotency-key': 'order-9' })
      ).json();
      expect(first).toMatchObject({ accepted: true, conversation: 'u:42' });
      expect(again).toEqual({ accepted: false, id: null, conversation: 'u:42' });
      const rows = await inbox.rows();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.dedupe_key).toBe('e:order_shipped:order-9');
    },
  );

  it.runIf(available)(
    "takes a mini-app's submission for the person of its initData, once per query_id",
    async () => {
      const auth = { authorization: `tma ${initData(person())}`, origin: ORIGIN };
      const form = { name: 'order_form', payload: { id: 'A-17', items: 2 } };
      const res = await post('/events/mini-app', form, auth);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(await res.json()).toMatchObject({ accepted: true, conversation: 'u:7' });
      expect(await (await post('/events/mini-app', form, auth)).json()).toMatchObject({ accepted: false });
      const inChat = initData(
        person({ query_id: 'AAQ-2', chat: JSON.stringify({ id: -100, type: 'chat' }) }),
      );
      const group = await post('/events/mini-app', form, { authorization: `tma ${inChat}` });
      expect(await group.json()).toMatchObject({ accepted: true, conversation: 'c:-100:u:7' });
      const rows = await inbox.rows();
      expect(rows.map((r) => r.dedupe_key)).toEqual([
        'e:order_form:mini-app:7:AAQ-1',
        'e:order_form:mini-app:7:AAQ-2',
      ]);
      expect(JSON.parse(rows[0]!.payload)).toMatchObject({ payload: { id: 'A-17' }, userId: 7 });
    },
  );

  it.runIf(available)('refuses tampered or old initData, no initData, and names not listed', async () => {
    const form = { name: 'order_form', payload: {} };
    const signed = initData(person());
    const tampered = signed.replace(encodeURIComponent('"id":7'), encodeURIComponent('"id":8'));
    expect(tampered).not.toBe(signed);
    const old = initData(person({ auth_date: String(Math.floor(Date.now() / 1000) - 601) }));
    const otherBot = initData(person(), 'another-bot-token-000000000');
    const cases = [
      [
        await post('/events/mini-app', form, { authorization: `tma ${tampered}` }),
        401,
        'BOTFLOW_INIT_DATA_SIGNATURE',
      ],
      [
        await post('/events/mini-app', form, { authorization: `tma ${otherBot}` }),
        401,
        'BOTFLOW_INIT_DATA_SIGNATURE',
      ],
      [
        await post('/events/mini-app', form, { authorization: `tma ${old}` }),
        401,
        'BOTFLOW_INIT_DATA_EXPIRED',
      ],
      [await post('/events/mini-app', form), 401, 'BOTFLOW_EVENTS_UNAUTHORIZED'],
      [await post('/events/mini-app', form, bearer()), 401, 'BOTFLOW_EVENTS_UNAUTHORIZED'],
      [
        await post('/events/mini-app', { name: 'payment_confirmed' }, { authorization: `tma ${signed}` }),
        403,
        'BOTFLOW_EVENT_NOT_ALLOWED',
      ],
      [
        await post('/events/mini-app', { ...form, to: { userId: 1 } }, { authorization: `tma ${signed}` }),
        422,
        'BOTFLOW_EVENT_INVALID',
      ],
    ] as const;
    for (const [res, status, code] of cases) {
      expect([res.status, (await res.json()).error.code]).toEqual([status, code]);
    }
    expect(await inbox.rows()).toEqual([]);
  });

  it.runIf(available)("answers a browser's preflight for the mini-app origin only", async () => {
    const preflight = (origin: string) =>
      fetch(`${base}/events/mini-app`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      });
    const ok = await preflight(ORIGIN);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(ok.headers.get('access-control-allow-headers')).toContain('authorization');
    const other = await preflight('https://evil.example');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it.runIf(available)('keeps its routes, parsers and CORS under a prefix on an app of yours', async () => {
    const mine = Fastify();
    mine.get('/health', async () => ({ ok: true }));
    await mine.register(
      eventsEndpoint({
        sender: appEventSender(inbox.commit),
        keys: [KEY],
        miniApp: { token: TOKEN, events: ['order_form'], origins: [ORIGIN] },
      }),
      { prefix: '/shop' },
    );
    const form = await mine.inject({
      method: 'POST',
      url: '/shop/events/mini-app',
      headers: { authorization: `tma ${initData(person({ query_id: 'AAQ-9' }))}`, origin: ORIGIN },
      payload: { name: 'order_form', payload: { id: 'P-1' } },
    });
    expect([form.statusCode, form.headers['access-control-allow-origin']]).toEqual([200, ORIGIN]);
    const preflight = await mine.inject({
      method: 'OPTIONS',
      url: '/shop/events/mini-app',
      headers: { origin: ORIGIN },
    });
    expect(preflight.statusCode).toBe(204);
    const bad = await mine.inject({
      method: 'POST',
      url: '/shop/events',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(bad.json().error.code).toBe('BOTFLOW_EVENTS_REQUEST_INVALID');
    expect((await mine.inject({ method: 'GET', url: '/health' })).json()).toEqual({ ok: true });
    await mine.close();
  });

  it.runIf(available)('logs neither the keys nor the payloads', async () => {
    await post('/events', { ...event, payload: { secret_note: 'p4yl0ad-text' } }, bearer());
    await post('/events', event, bearer('k_wrong_0123456789abcdef00'));
    const text = logged.join('');
    for (const hidden of [KEY, OLD_KEY, 'k_wrong_0123456789abcdef00', 'p4yl0ad-text', TOKEN])
      expect(text).not.toContain(hidden);
  });
});
