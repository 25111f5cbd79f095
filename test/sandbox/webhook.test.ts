import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeUpdate } from '../../src/client/schemas/index.ts';
import { eventually } from '../support/eventually.ts';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog, raw } from './helpers.ts';

interface Received {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A webhook receiver on 127.0.0.1 that answers with `status(n)` for the n-th delivery. */
async function receiver(status: (n: number) => number) {
  const received: Received[] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(text) });
      res.statusCode = status(++n);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let h: SandboxClient;
afterEach(() => h.close());

describe('webhook delivery', () => {
  it('POSTs each update once with the secret header, and lists the subscription', async () => {
    h = await sandboxClient();
    const hook = await receiver(() => 200);
    try {
      await h.api.subscribe({
        url: hook.url,
        secret: 'my_secret-123',
        update_types: ['bot_started', 'message_created'],
      });
      const subs = await h.api.getSubscriptions();
      expect(subs.subscriptions).toEqual([
        expect.objectContaining({ url: hook.url, update_types: ['bot_started', 'message_created'] }),
      ]);
      expect(JSON.stringify(subs)).not.toContain('my_secret-123');
      const { user } = await personInDialog(h.sandbox);
      await h.sandbox.control.mute(user.user_id); // not subscribed: not delivered
      await h.sandbox.control.sendText(user.user_id, 'dialog', 'hello');
      await eventually('condition', () => (hook.received.length >= 2 ? true : undefined), 10_000);
      expect(hook.received.map((r) => r.body.update_type)).toEqual(['bot_started', 'message_created']);
      for (const r of hook.received) {
        expect(r.headers['x-svc-bot-api-secret']).toBe('my_secret-123');
        expect(r.headers['content-type']).toMatch(/application\/json/);
        expect(decodeUpdate(r.body).update_type).not.toBe('unknown');
      }
    } finally {
      await hook.close();
    }
  });

  it('retries a failing receiver with growing delays, keeping the order', async () => {
    h = await sandboxClient({ webhook: { firstRetryDelayMs: 50, maxRetryDelayMs: 400 } });
    const hook = await receiver((n) => (n <= 3 ? 500 : 200));
    try {
      await h.api.subscribe({ url: hook.url });
      const { user } = await personInDialog(h.sandbox);
      await h.sandbox.control.sendText(user.user_id, 'dialog', 'after start');
      await eventually('condition', () => (hook.received.length >= 5 ? true : undefined), 10_000);
      expect(hook.received.map((r) => r.body.update_type)).toEqual([
        'bot_started',
        'bot_started',
        'bot_started',
        'bot_started',
        'message_created',
      ]);
      const { attempts } = await h.sandbox.control.deliveries();
      const failed = attempts.filter((a) => !a.ok);
      expect(failed.map((a) => [a.attempt, a.status, a.retry_in_ms])).toEqual([
        [1, 500, 50],
        [2, 500, 100],
        [3, 500, 200],
      ]);
    } finally {
      await hook.close();
    }
  });

  it('drops the subscription after the give-up time, and long polling works again', async () => {
    h = await sandboxClient({
      webhookGiveUpMs: 300,
      webhook: { firstRetryDelayMs: 50, maxRetryDelayMs: 100 },
    });
    const hook = await receiver(() => 503);
    try {
      await h.api.subscribe({ url: hook.url, secret: 'abcde' });
      await personInDialog(h.sandbox);
      await eventually(
        'condition',
        async () => ((await h.api.getSubscriptions()).subscriptions.length === 0 ? true : undefined),
        10_000,
      );
      expect(hook.received.length).toBeGreaterThan(1);
      await expect(h.api.getUpdates({ timeout: 0 })).resolves.toBeDefined();
    } finally {
      await hook.close();
    }
  });

  it('validates subscriptions like the platform, except that http://127.0.0.1 is allowed', async () => {
    h = await sandboxClient();
    await expect(h.api.subscribe({ url: 'http://example.com/hook' })).rejects.toMatchObject({ status: 400 });
    const badSecret = await raw(h.sandbox, 'POST', '/subscriptions', {
      url: 'https://example.com/hook',
      secret: 'no spaces',
    });
    expect(badSecret).toMatchObject({
      status: 400,
      body: { code: 'proto.payload', message: expect.stringContaining('secret') },
    });
    const badType = await raw(h.sandbox, 'POST', '/subscriptions', {
      url: 'https://example.com/hook',
      update_types: ['nope'],
    });
    expect(badType).toMatchObject({ status: 400, body: { message: expect.stringContaining('nope') } });
    expect((await h.api.getSubscriptions()).subscriptions).toEqual([]);
    expect(await h.api.unsubscribe({ url: 'https://example.com/none' })).toMatchObject({ success: false });
  });
});
