import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/errors.ts';
import type { LoggedRequest } from '../../src/sandbox/index.ts';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog } from './helpers.ts';

let h: SandboxClient;
afterEach(() => h.close());

/** A limiter clock the test moves by hand, so that no window depends on how fast the machine is. */
function manualClock() {
  let t = 1_000_000;
  return { clock: () => t, advance: (ms: number) => (t += ms) };
}

/** The largest number of accepted requests (status ≠ 429) in any one-second window. */
function maxPerSecond(log: LoggedRequest[], filter: (r: LoggedRequest) => boolean = () => true): number {
  const times = log.filter((r) => r.status !== 429 && filter(r)).map((r) => r.time);
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

async function settle<T>(calls: Promise<T>[]) {
  const results = await Promise.allSettled(calls);
  const rejected = results
    .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    .map((r) => r.reason);
  return { ok: results.length - rejected.length, rejected };
}

describe('rate limits', () => {
  it('answers 429 with Retry-After above 30 requests per second, and never admits more', async () => {
    const time = manualClock();
    h = await sandboxClient({ limits: { global: 30, perChat: 2, clock: time.clock } });
    const { ok, rejected } = await settle(Array.from({ length: 45 }, () => h.api.getMyInfo()));
    expect(ok).toBeLessThanOrEqual(30);
    expect(rejected.length).toBeGreaterThanOrEqual(15);
    for (const err of rejected) {
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 429, code: 'too.many.requests' });
      expect(Number.isInteger(err.retryAfter) && err.retryAfter >= 1).toBe(true);
    }
    const log = h.sandbox.requestLog.list();
    expect(log.filter((r) => r.status === 429)).toHaveLength(rejected.length);
    expect(maxPerSecond(log)).toBeLessThanOrEqual(30);
    time.advance(1000 * Math.max(...rejected.map((e) => e.retryAfter)));
    await expect(h.api.getMyInfo()).resolves.toMatchObject({ user_id: h.sandbox.bot.user_id });
  });

  it('never lets more than 30 requests through in any real second under sustained load', async () => {
    h = await sandboxClient({ limits: { global: 30, perChat: 2 } });
    const deadline = Date.now() + 1500;
    let rejected = 0;
    while (Date.now() < deadline) {
      const r = await settle(Array.from({ length: 10 }, () => h.api.getMyInfo()));
      rejected += r.rejected.length;
    }
    expect(rejected).toBeGreaterThan(0);
    expect(maxPerSecond(h.sandbox.requestLog.list())).toBeLessThanOrEqual(30);
  });

  it('limits message operations to 2 per second per chat, independently for each chat', async () => {
    const time = manualClock();
    h = await sandboxClient({ limits: { global: 30, perChat: 2, clock: time.clock } });
    const a = await personInDialog(h.sandbox, 'Ann');
    const b = await personInDialog(h.sandbox, 'Bob');
    const send = (user_id: number, text: string) => h.api.sendMessage({ user_id, text });
    const first = await settle([
      send(a.user.user_id, '1'),
      send(a.user.user_id, '2'),
      send(a.user.user_id, '3'),
    ]);
    expect(first.ok).toBe(2);
    expect(first.rejected[0]).toMatchObject({ status: 429 });
    const res = await fetch(`${h.sandbox.baseUrl}/messages?user_id=${a.user.user_id}`, {
      method: 'POST',
      headers: { authorization: h.sandbox.token, 'content-type': 'application/json' },
      body: '{"text":"4"}',
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await res.json()).toMatchObject({ code: 'too.many.requests' });
    // Another chat is not affected; reads are not chat-limited.
    await expect(send(b.user.user_id, 'hi')).resolves.toBeDefined();
    await expect(h.api.getMessages({ chat_id: a.chatId })).resolves.toBeDefined();
    const log = h.sandbox.requestLog.list();
    expect(log.filter((r) => r.op === 'sendMessage' && r.status === 200).map((r) => r.chat)).toEqual([
      a.chatId,
      a.chatId,
      b.chatId,
    ]);
    expect(maxPerSecond(log, (r) => r.chat === a.chatId)).toBeLessThanOrEqual(2);
    time.advance(1000 * Number(res.headers.get('retry-after')));
    await expect(send(a.user.user_id, 'later')).resolves.toBeDefined();
  });

  it('counts edits, deletes and callback answers against the chat of the message', async () => {
    const time = manualClock();
    h = await sandboxClient({ limits: { global: 30, perChat: 2, clock: time.clock } });
    const { user, chatId } = await personInDialog(h.sandbox);
    const sent = await h.api.sendMessage({
      user_id: user.user_id,
      text: 'x',
      attachments: [
        {
          type: 'inline_keyboard',
          payload: { buttons: [[{ type: 'callback', text: 'Go', payload: 'go' }]] },
        },
      ],
    });
    const mid = sent.message.body.mid;
    const { callback_id } = await h.sandbox.control.pressButton(user.user_id, mid, 'go');
    await h.api.answerCallback({ callback_id: callback_id!, notification: 'ok' });
    await expect(h.api.editMessage({ message_id: mid, text: 'y' })).rejects.toMatchObject({ status: 429 });
    time.advance(1000);
    await h.api.editMessage({ message_id: mid, text: 'y' });
    await h.api.deleteMessage({ message_id: mid });
    const scoped = h.sandbox.requestLog.list().filter((r) => r.chat !== undefined);
    expect(scoped.map((r) => [r.op, r.chat, r.status])).toEqual([
      ['sendMessage', chatId, 200],
      ['answerCallback', chatId, 200],
      ['editMessage', chatId, 429],
      ['editMessage', chatId, 200],
      ['deleteMessage', chatId, 200],
    ]);
  });

  it('scales the limits for fast tests and can be switched off', async () => {
    h = await sandboxClient({ limits: { global: 30, perChat: 2, scale: 10 } });
    const { user } = await personInDialog(h.sandbox);
    const scaled = await settle(
      Array.from({ length: 20 }, (_, i) => h.api.sendMessage({ user_id: user.user_id, text: `${i}` })),
    );
    expect(scaled.ok).toBe(20);
    await h.close();
    h = await sandboxClient({ limits: false });
    const off = await settle(Array.from({ length: 100 }, () => h.api.getMyInfo()));
    expect(off.ok).toBe(100);
  });

  it('serves the request log over HTTP too', async () => {
    h = await sandboxClient();
    await h.api.getMyInfo();
    const requests = await h.sandbox.control.requests();
    expect(requests).toEqual([
      expect.objectContaining({ method: 'GET', path: '/me', op: 'getMyInfo', status: 200 }),
    ]);
    expect(JSON.stringify(requests)).not.toContain(h.sandbox.token);
  });
});
