import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildSandbox, type FeedEvent } from '../../src/sandbox/index.ts';
import { eventually } from '../support/eventually.ts';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog, raw } from './helpers.ts';

let h: SandboxClient | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('wire details', () => {
  it('a notification-only answer is literally {"success":true,"message":null}', async () => {
    h = await sandboxClient();
    const { user } = await personInDialog(h.sandbox);
    const sent = await h.api.sendMessage({
      user_id: user.user_id,
      text: 'x',
      attachments: [
        { type: 'inline_keyboard', payload: { buttons: [[{ type: 'callback', text: 'A', payload: 'a' }]] } },
      ],
    });
    const { callback_id } = await h.sandbox.control.pressButton(user.user_id, sent.message.body.mid, 'a');
    const res = await raw(h.sandbox, 'POST', `/answers?callback_id=${encodeURIComponent(callback_id!)}`, {
      notification: 'hi',
    });
    expect(res).toMatchObject({ status: 200, body: { success: true, message: null } });
  });

  it('treats empty parameters as absent and refuses query parameters sent in the body', async () => {
    h = await sandboxClient();
    const { user } = await personInDialog(h.sandbox);
    const polled = await raw(h.sandbox, 'GET', '/updates?timeout=0&types=');
    expect(polled).toMatchObject({
      status: 200,
      body: { updates: [expect.objectContaining({ update_type: 'bot_started' })] },
    });
    const inBody = await raw(h.sandbox, 'POST', '/messages', { user_id: user.user_id, text: 'body target' });
    expect(inBody).toMatchObject({
      status: 400,
      body: { code: 'proto.payload', message: expect.stringContaining('"user_id" belongs in the query') },
    });
    const sent = await raw(h.sandbox, 'POST', `/messages?user_id=${user.user_id}`, { text: 'query target' });
    const mid = (sent.body.message as { body: { mid: string } }).body.mid;
    expect(
      await raw(h.sandbox, 'PUT', '/messages', { message_id: mid, text: 'edited via body' }),
    ).toMatchObject({
      status: 400,
      body: { code: 'proto.payload', message: expect.stringContaining('"message_id"') },
    });
    expect((await h.api.getMessage({ message_id: mid })).body.text).toBe('query target');
    expect(await raw(h.sandbox, 'GET', '/updates?limit=abc')).toMatchObject({
      status: 400,
      body: { code: 'proto.payload', message: expect.stringContaining('limit') },
    });
    expect(await raw(h.sandbox, 'GET', '/no/such/route')).toMatchObject({
      status: 404,
      body: { code: 'not.found' },
    });
  });

  it('retries a webhook that does not answer within the timeout', async () => {
    h = await sandboxClient({ webhook: { timeoutMs: 200, firstRetryDelayMs: 20 } });
    let calls = 0;
    const server: Server = createServer((_req, res) => {
      calls++;
      if (calls === 1) return; // never answers: the delivery times out
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await h.api.subscribe({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` });
      await personInDialog(h.sandbox);
      await eventually(
        'condition',
        async () => ((await h!.sandbox.control.deliveries()).attempts.some((a) => a.ok) ? true : undefined),
        10_000,
      );
      const { attempts } = await h.sandbox.control.deliveries();
      expect(attempts.map((a) => [a.update_type, a.attempt, a.ok])).toEqual([
        ['bot_started', 1, false],
        ['bot_started', 2, true],
      ]);
      expect(attempts[0]!.error).toBeDefined();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('replays missed events to a stream that reconnects with Last-Event-ID', async () => {
    h = await sandboxClient();
    const { user } = await personInDialog(h.sandbox);
    const seen: (FeedEvent & { id: number })[] = [];
    const first = await h.sandbox.control.events((e) => seen.push(e), { user_id: user.user_id });
    await h.api.sendMessage({ user_id: user.user_id, text: 'one' });
    await eventually('condition', () => (seen.length === 1 ? true : undefined), 10_000);
    first.close();
    await h.api.sendMessage({ user_id: user.user_id, text: 'two' });
    const res = await fetch(`${h.sandbox.baseUrl}/_sandbox/events?user_id=${user.user_id}`, {
      headers: { 'last-event-id': String(seen[0]!.id) },
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('"two"')) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    await reader.cancel();
    expect(text).toContain('event: message.created');
    expect(text).not.toContain('"one"');
  });

  it('buildSandbox serves through inject() without a socket, and mounts extra plugins', async () => {
    const app = await buildSandbox({
      token: 't-inject',
      plugins: [async (web) => void web.get('/web/health', async () => ({ ok: true }))],
    });
    try {
      const me = await app.inject({ method: 'GET', url: '/me', headers: { authorization: 't-inject' } });
      expect(me.statusCode).toBe(200);
      expect(me.json()).toMatchObject({ is_bot: true });
      expect((await app.inject({ method: 'GET', url: '/web/health' })).json()).toEqual({ ok: true });
      expect(app.sandbox.platform.data.bot.user_id).toBe(me.json().user_id);
    } finally {
      await app.close();
    }
  });
});
