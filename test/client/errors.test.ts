/**
 * How failures reach the caller: platform errors as ApiError (with code and Retry-After), no
 * answer as NetworkError with a correct `sent`, bad answers as ResponseDecodeError, and
 * `{success: false}` returned rather than thrown.
 */

import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BotApi, isFailure } from '../../src/client/client.ts';
import { ApiError, NetworkError, ResponseDecodeError, UsageError } from '../../src/client/errors.ts';
import { parseRetryAfter, toNetworkError } from '../../src/client/transport.ts';
import { eventually } from '../support/eventually.ts';
import { type FakePlatform, payload, startFakePlatform } from './fake-platform.ts';

const TOKEN = 'tok-errors-123';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(reply?: Parameters<typeof startFakePlatform>[0], timeoutMs?: number) {
  const platform: FakePlatform = await startFakePlatform(reply);
  const api = new BotApi({ token: TOKEN, baseUrl: platform.url, ...(timeoutMs ? { timeoutMs } : {}) });
  cleanups.push(
    () => platform.close(),
    () => api.close(),
  );
  return { platform, api };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('ApiError', () => {
  it('carries status, code and the platform message of a 401', async () => {
    const { api } = await setup({ status: 401, body: payload('error.invalid-token.json') });
    const err = await failure(api.getMyInfo());
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 401,
      code: 'verify.token',
      platformMessage: 'Invalid access_token',
      operation: 'getMyInfo',
    });
    expect((err as Error).message).toBe('getMyInfo failed with HTTP 401 verify.token: Invalid access_token');
  });

  it('recognises attachment.not.ready so the caller can repeat later', async () => {
    const { api } = await setup({ status: 400, body: payload('error.attachment.not.ready.json') });
    const err = (await failure(
      api.sendMessage({ chat_id: 1, attachments: [{ type: 'video', payload: { token: 't' } }] }),
    )) as ApiError;
    expect(err.isAttachmentNotReady).toBe(true);
    expect(err.status).toBe(400);
  });

  it('reads Retry-After in seconds on 429', async () => {
    const { api } = await setup({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { code: 'too.many.requests' },
    });
    const err = (await failure(api.sendMessage({ chat_id: 1, text: 'x' }))) as ApiError;
    expect(err).toMatchObject({ status: 429, retryAfter: 7, isRateLimited: true });
  });

  it('reads Retry-After as an HTTP date', () => {
    const now = Date.parse('2026-11-22T05:00:00Z');
    expect(parseRetryAfter('Sun, 22 Nov 2026 05:00:12 GMT', now)).toBe(12);
    expect(parseRetryAfter('Sun, 22 Nov 2026 04:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('tolerates a non-JSON error body (a proxy page) and keeps it', async () => {
    const { api } = await setup({
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: '<h1>Bad Gateway</h1>',
    });
    const err = (await failure(api.getMyInfo())) as ApiError;
    expect(err).toMatchObject({ status: 502, code: 'http.502', platformMessage: '<h1>Bad Gateway</h1>' });
    expect(err.body).toContain('Bad Gateway');
  });
});

describe('results that are not errors', () => {
  it('returns success:false instead of throwing, and isFailure() spots it', async () => {
    const { api } = await setup({ body: { success: false, message: 'callback expired' } });
    const result = await api.answerCallback({ callback_id: 'old', notification: 'hi' });
    expect(isFailure(result)).toBe(true);
    expect(result.message).toBe('callback expired');
    expect(isFailure({ success: true })).toBe(false);
    expect(isFailure({ message: { body: {} } })).toBe(false);
  });
});

describe('ResponseDecodeError', () => {
  it('names the field that did not decode and keeps the raw answer', async () => {
    const raw = { message: { recipient: { chat_id: 1 }, timestamp: 1, body: { text: 'no mid' } } };
    const { api } = await setup({ body: raw });
    const err = (await failure(api.sendMessage({ chat_id: 1, text: 'x' }))) as ResponseDecodeError;
    expect(err).toBeInstanceOf(ResponseDecodeError);
    expect(err.path).toBe('message.body.mid');
    expect(err.raw).toEqual(raw);
    expect(err.message).toContain('sendMessage response: field message.body.mid');
  });

  it('refuses a 200 that is not JSON', async () => {
    const { api } = await setup({ body: 'OK' });
    const err = (await failure(api.getMyInfo())) as ResponseDecodeError;
    expect(err).toBeInstanceOf(ResponseDecodeError);
    expect(err.raw).toBe('OK');
  });

  it('sets aside an update that does not decode without losing the batch or the marker', async () => {
    const good = (payload('update.bot_started.json') as { updates: unknown[] }).updates[0];
    const bad = { update_type: 'message_created', timestamp: 1, message: { body: 'not an object' } };
    const unknownType = { update_type: 'future_thing', timestamp: 2, x: 1 };
    const { api } = await setup({ body: { updates: [good, bad, unknownType], marker: 99 } });
    const result = await api.getUpdates({ timeout: 0 });
    expect(result.marker).toBe(99);
    expect(result.updates.map((u) => u.update_type)).toEqual(['bot_started', 'unknown']);
    expect(result.undecodable).toHaveLength(1);
    expect(result.undecodable[0]!.raw).toEqual(bad);
    expect(result.undecodable[0]!.error.path).toContain('message');
  });
});

describe('NetworkError', () => {
  it('connection refused: sent=false (safe to repeat)', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    const api = new BotApi({ token: TOKEN, baseUrl: `http://127.0.0.1:${port}` });
    cleanups.push(() => api.close());
    const err = (await failure(api.sendMessage({ chat_id: 1, text: 'x' }))) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'ECONNREFUSED', sent: false, operation: 'sendMessage' });
    expect(err.message).toContain('refused');
  });

  it('connect (TCP + TLS handshake) not done in time: UND_ERR_CONNECT_TIMEOUT, sent=false', async () => {
    const held: net.Socket[] = [];
    const silent = net.createServer((socket) => held.push(socket)); // accepts TCP, never answers the TLS hello
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as AddressInfo;
    const api = new BotApi({ token: TOKEN, baseUrl: `https://127.0.0.1:${port}`, connectTimeoutMs: 300 });
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          for (const socket of held) socket.destroy();
          silent.close(() => r());
        }),
      () => api.close(),
    );
    const err = (await failure(api.sendMessage({ chat_id: 1, text: 'x' }))) as NetworkError;
    expect(err).toMatchObject({ code: 'UND_ERR_CONNECT_TIMEOUT', sent: false });
    expect(err.message).toContain('could not connect to 127.0.0.1');
  });

  it('socket closed after the request was written: sent=true (ambiguous)', async () => {
    const { api } = await setup((_req, res) => {
      res.socket?.destroy();
      return 'handled';
    });
    const err = (await failure(api.sendMessage({ chat_id: 1, text: 'x' }))) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(['UND_ERR_SOCKET', 'ECONNRESET']).toContain(err.code);
    expect(err.sent).toBe(true);
  });

  it('no answer in time: UND_ERR_HEADERS_TIMEOUT, sent=true', async () => {
    const { api } = await setup(() => 'handled', 300);
    const err = (await failure(api.sendMessage({ chat_id: 1, text: 'x' }))) as NetworkError;
    expect(err).toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT', sent: true });
    expect(err.message).toContain('may have been processed');
  });

  it('answer stalls mid-body: UND_ERR_BODY_TIMEOUT, sent=true', async () => {
    const { api } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"success":');
      return 'handled';
    }, 300);
    const err = (await failure(api.deleteMessage({ message_id: 'm' }))) as NetworkError;
    expect(err).toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT', sent: true });
  });

  it('aborted by the caller: code ABORTED', async () => {
    const { platform, api } = await setup(() => 'handled');
    const controller = new AbortController();
    const pending = failure(api.getMyInfo({ signal: controller.signal }));
    await eventually('the request at the platform', () => platform.requests.length > 0, 10_000);
    controller.abort();
    const err = (await pending) as NetworkError;
    expect(err).toMatchObject({ code: 'ABORTED', sent: true });
  });

  it('destroy() ends a long poll in flight at once', async () => {
    const { platform, api } = await setup(() => 'handled');
    const pending = failure(api.getUpdates({ timeout: 90 }));
    await eventually('the long poll at the platform', () => platform.requests.length > 0, 10_000);
    await api.destroy();
    const err = (await pending) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.sent).toBe(true);
    const after = await failure(api.getMyInfo());
    expect(after).toBeInstanceOf(UsageError);
    expect((after as Error).message).toBe('getMyInfo: the client is closed: create a new BotApi');
    expect(platform.requests).toHaveLength(1);
  });

  it('classifies low-level codes: never-sent versus maybe-sent', () => {
    const ctx = { host: 'h', timeoutMs: 1 };
    const sentOf = (code: string) => toNetworkError(Object.assign(new Error(code), { code }), 'op', ctx).sent;
    for (const code of [
      'UND_ERR_CONNECT_TIMEOUT',
      'ECONNREFUSED',
      'ENOTFOUND',
      'EAI_AGAIN',
      'CERT_HAS_EXPIRED',
    ])
      expect(sentOf(code), code).toBe(false);
    for (const code of [
      'UND_ERR_SOCKET',
      'ECONNRESET',
      'UND_ERR_HEADERS_TIMEOUT',
      'UND_ERR_BODY_TIMEOUT',
      'EPIPE',
    ])
      expect(sentOf(code), code).toBe(true);
    const wrapped = toNetworkError(new Error('outer', { cause: { code: 'ENOTFOUND' } }), 'op', ctx);
    expect(wrapped).toMatchObject({ code: 'ENOTFOUND', sent: false });
  });

  it('getUpdates waits for the long poll beyond the client timeout', async () => {
    const { api } = await setup((_req, res) => {
      setTimeout(() => res.end(JSON.stringify({ updates: [], marker: 5 })), 800);
      return 'handled';
    }, 200);
    const result = await api.getUpdates({ timeout: 1 });
    expect(result).toEqual({ updates: [], marker: 5, undecodable: [] });
  });
});
