import type { FastifyInstance } from 'fastify';
import { Agent, fetch } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AcceptedBatch } from '../../src/inbox/inbox-writer.ts';
import { buildWebhook } from '../../src/intake/webhook.ts';
import { tempDatabase, webhookPayload } from './helpers.ts';

const SECRET = 'good_secret-123';
let env: ReturnType<typeof tempDatabase>;
let app: FastifyInstance;
let accepted: AcceptedBatch[];

beforeEach(() => {
  env = tempDatabase();
  accepted = [];
  app = buildWebhook({
    db: env.db,
    secret: SECRET,
    bodyLimit: 64 * 1024,
    onAccepted: (b) => accepted.push(b),
  });
});
afterEach(async () => {
  await app.close();
  env.cleanup();
});

const post = (payload: string, headers: Record<string, string> = { 'x-svc-bot-api-secret': SECRET }) =>
  app.inject({
    method: 'POST',
    url: '/webhook',
    payload,
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('webhook receiver', () => {
  it('stores an update with the right secret before answering 200, byte for byte', async () => {
    const text = webhookPayload('message_callback');
    const response = await post(text);
    expect(response.statusCode).toBe(200);
    const [row] = env.inbox.nextPending();
    expect(row).toMatchObject({ updateType: 'message_callback', status: 'pending', kind: 'update' });
    expect(row!.dedupeKey).toMatch(/^cb:f9LHodD0/);
    expect(row!.conversationKey).toBe('u:123456789');
    // Stored as received: seq values beyond 2^53 keep their digits.
    expect(row!.payload).toBe(text);
    expect(row!.payload).toContain('116328147937082782');
    expect(accepted).toEqual([{ ids: [row!.id], payloads: [text], duplicates: 0 }]);
  });

  it('accepts the public platform header too', async () => {
    const response = await post(webhookPayload('bot_started'), { 'x-max-bot-api-secret': SECRET });
    expect(response.statusCode).toBe(200);
    expect(env.inbox.counts().pending).toBe(1);
  });

  it('keeps Cyrillic text intact', async () => {
    const text = JSON.stringify({
      update_type: 'message_created',
      timestamp: 1,
      message: {
        recipient: { chat_id: 5, chat_type: 'dialog' },
        sender: { user_id: 9, first_name: 'Иван' },
        timestamp: 1,
        body: { mid: 'mid.cyr', seq: 1, text: 'Привет, мир! Ёжик 🦔' },
      },
    });
    expect((await post(text)).statusCode).toBe(200);
    const row = env.inbox.findByDedupeKey('message_created:mid.cyr');
    expect(JSON.parse(row!.payload).message.body.text).toBe('Привет, мир! Ёжик 🦔');
  });

  it('refuses a wrong or missing secret with 401 and stores nothing', async () => {
    const wrong = await post(webhookPayload('bot_started'), { 'x-svc-bot-api-secret': 'bad_secret-123' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ code: 'verify.secret', message: 'wrong webhook secret' });
    const prefix = await post(webhookPayload('bot_started'), { 'x-svc-bot-api-secret': SECRET.slice(0, -1) });
    expect(prefix.statusCode).toBe(401);
    const missing = await post(webhookPayload('bot_started'), {});
    expect(missing.statusCode).toBe(401);
    expect(missing.json().message).toBe('missing webhook secret header');
    expect(env.inbox.counts().pending).toBe(0);
    expect(accepted).toEqual([]);
  });

  it('answers 413 to an oversized body and stores nothing', async () => {
    const huge = JSON.stringify({ update_type: 'message_created', pad: 'x'.repeat(70 * 1024) });
    const response = await post(huge);
    expect(response.statusCode).toBe(413);
    expect(response.json().code).toBe('payload.too.large');
    expect(env.inbox.counts().pending).toBe(0);
  });

  it('answers 400 to malformed JSON and to bodies that are not updates', async () => {
    for (const body of ['{"update_type": "message_created"', '[1,2]', '"text"', '{"no_type": 1}', '']) {
      const response = await post(body);
      expect(response.statusCode, body).toBe(400);
      expect(response.json().code).toBe('proto.payload');
    }
    expect((await post('{"update_type": 5}')).json().message).toMatch(/update_type/);
    expect(env.inbox.counts().pending).toBe(0);
  });

  it('accepts unknown update types and unknown fields', async () => {
    const response = await post('{"update_type":"poll_created","poll":{"question":"Да?"},"chat_id":-7}');
    expect(response.statusCode).toBe(200);
    expect(env.inbox.nextPending()[0]).toMatchObject({ updateType: 'poll_created', conversationKey: 'c:-7' });
  });

  it('stores a duplicate delivery once, even when both arrive at the same time', async () => {
    const text = webhookPayload('message_created');
    const responses = await Promise.all([post(text), post(text), post(text)]);
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect((await post(text)).statusCode).toBe(200);
    expect(env.inbox.counts().pending).toBe(1);
    expect(accepted.flatMap((b) => b.ids)).toHaveLength(1);
  });

  it('answers 503 when the inbox cannot commit, so that the platform delivers again', async () => {
    env.db.close();
    const response = await post(webhookPayload('bot_started'));
    expect(response.statusCode).toBe(503);
    expect(response.json().code).toBe('inbox.unavailable');
  });

  it('refuses a secret the platform would not accept', () => {
    expect(() => buildWebhook({ db: env.db, secret: 'a b' })).toThrow(/5\.\.256 characters/);
  });
});

describe('webhook receiver on a real port', () => {
  it('stores every acknowledged update under concurrent load', async () => {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    // A client of its own that really sends at once (whatever another test did to the global one).
    const client = new Agent({ connections: 300 });
    const sends = Array.from({ length: 300 }, (_, i) =>
      fetch(`${address}/webhook`, {
        dispatcher: client,
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'x-svc-bot-api-secret': SECRET },
        body: JSON.stringify({
          update_type: 'message_created',
          message: { recipient: { chat_id: i % 7 }, body: { mid: `mid.${i}`, text: `№${i}` } },
        }),
      }).then((r) => r.status),
    );
    const statuses = await Promise.all(sends);
    await client.close();
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(env.inbox.counts().pending).toBe(300);
    // Each acknowledged update committed once (how many share a commit depends on how they arrive: the
    // group commit itself is tested in test/inbox/inbox-writer.test.ts).
    expect(new Set(accepted.flatMap((b) => b.ids)).size).toBe(300);
  });
});
