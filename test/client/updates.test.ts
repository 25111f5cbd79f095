/**
 * Every recorded update decodes: the long-polling lists (update.*.json) through getUpdates over
 * real HTTP, and the webhook bodies (webhook.*.json) through decodeUpdate.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { decodeUpdate } from '../../src/client/schemas/decode.ts';
import { type FakePlatform, PAYLOADS, payload, startFakePlatform } from './fake-platform.ts';

const files = readdirSync(PAYLOADS).filter((f) => f.endsWith('.json'));
const lists = files.filter((f) => f.startsWith('update.'));
const webhooks = files.filter((f) => f.startsWith('webhook.'));
const typeOf = (file: string) => file.replace(/^(update|webhook)\./, '').replace(/\.json$/, '');

let platform: FakePlatform;
let api: BotApi;
beforeAll(async () => {
  platform = await startFakePlatform();
  api = new BotApi({ token: 't', baseUrl: platform.url });
});
afterAll(async () => {
  await api.close();
  await platform.close();
});

describe('recorded long-polling answers decode through getUpdates', () => {
  it('there are recordings to test', () => {
    expect(lists.length).toBeGreaterThanOrEqual(15);
    expect(webhooks.length).toBeGreaterThanOrEqual(15);
  });

  for (const file of lists) {
    it(file, async () => {
      const raw = payload(file) as { updates: unknown[]; marker: number };
      platform.respond({ body: raw });
      const result = await api.getUpdates({ marker: 1, timeout: 0 });
      expect(result.undecodable).toEqual([]);
      expect(result.marker).toBe(raw.marker);
      expect(result.updates).toHaveLength(raw.updates.length);
      for (const update of result.updates) expect(update.update_type).toBe(typeOf(file));
    });
  }
});

describe('recorded webhook bodies decode', () => {
  for (const file of webhooks) {
    it(file, () => {
      const update = decodeUpdate(payload(file));
      expect(update.update_type).toBe(typeOf(file));
    });
  }

  it('a message_callback keeps the fields a flow needs', () => {
    const update = decodeUpdate(payload('webhook.message_callback.json'));
    if (update.update_type !== 'message_callback') throw new Error('wrong type');
    expect(update.callback.callback_id).toMatch(/^f9LHod/);
    expect(update.callback.payload).toBe('picture');
    expect(update.callback.user.user_id).toBe(123456789);
  });

  it('a message_created keeps its sender, recipient and text', () => {
    const update = decodeUpdate(payload('webhook.message_created.json'));
    if (update.update_type !== 'message_created') throw new Error('wrong type');
    expect(update.message.body.mid).toMatch(/^mid\./);
    expect(update.message.recipient).toBeDefined();
  });
});
