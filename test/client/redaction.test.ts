/**
 * The bot token never leaves the Authorization header: not in errors (even when the server echoes
 * it), not in log lines, not in JSON.stringify or util.inspect of the client or its errors.
 */

import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { ApiError, NetworkError, UsageError } from '../../src/client/errors.ts';
import { startFakePlatform } from './fake-platform.ts';

const TOKEN = 'f9a8b7c6d5e4-SECRET-TOKEN-0001';

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function caught(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
}

function everyRendering(value: unknown): string {
  const err = value as Error;
  return [
    String(value),
    err.message,
    err.stack ?? '',
    JSON.stringify(value),
    inspect(value, { depth: 10, showHidden: true }),
  ].join('\n');
}

describe('token redaction', () => {
  it('the client serializes and inspects without its token', async () => {
    const api = new BotApi({ token: TOKEN, baseUrl: 'http://127.0.0.1:9' });
    cleanups.push(() => api.close());
    expect(JSON.stringify(api)).toBe('{"baseUrl":"http://127.0.0.1:9","token":"<redacted>"}');
    expect(inspect(api, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    expect(JSON.stringify({ nested: { api } })).not.toContain(TOKEN);
    expect(Object.keys(api)).not.toContain('token');
  });

  it('an error echoing the token does not carry it, nor does the log', async () => {
    const { logger, lines } = capturingLogger();
    const platform = await startFakePlatform((req) => ({
      status: 401,
      body: { code: 'verify.token', message: `Invalid access_token ${req.headers.authorization}` },
    }));
    const api = new BotApi({ token: TOKEN, baseUrl: platform.url, logger });
    cleanups.push(
      () => platform.close(),
      () => api.close(),
    );
    const err = await caught(api.getMyInfo());
    expect(err).toBeInstanceOf(ApiError);
    expect(platform.requests[0]!.headers.authorization).toBe(TOKEN); // it was sent, raw
    expect((err as ApiError).platformMessage).toBe('Invalid access_token <redacted>');
    expect(everyRendering(err)).not.toContain(TOKEN);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('')).not.toContain(TOKEN);
  });

  it('network errors and success logs do not carry it', async () => {
    const { logger, lines } = capturingLogger();
    const platform = await startFakePlatform({ body: { user_id: 1 } });
    const api = new BotApi({ token: TOKEN, baseUrl: platform.url, logger });
    cleanups.push(() => api.close());
    await api.getMyInfo();
    await platform.close();
    const err = await caught(api.getMyInfo());
    expect(err).toBeInstanceOf(NetworkError);
    expect(everyRendering(err)).not.toContain(TOKEN);
    expect(lines.some((l) => l.includes('"api call"'))).toBe(true);
    expect(lines.some((l) => l.includes('api network error'))).toBe(true);
    expect(lines.join('')).not.toContain(TOKEN);
  });
});

describe('token checks', () => {
  it('a token with a line break or space is refused at creation, without echoing it', () => {
    for (const token of [`${TOKEN}\n`, ` ${TOKEN}`, 'tok en', '']) {
      let error: unknown;
      try {
        new BotApi({ token, baseUrl: 'http://127.0.0.1:9' });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).field).toBe('token');
      if (token) expect(everyRendering(error)).not.toContain(token.trim());
    }
  });

  it('the token goes to image upload hosts only', () => {
    const api = new BotApi({ token: TOKEN, baseUrl: 'http://127.0.0.1:9' });
    cleanups.push(() => api.close());
    expect(api.uploadHeaders('image')).toEqual({ authorization: TOKEN });
    expect(api.uploadHeaders('video')).toEqual({});
    expect(api.uploadHeaders('file')).toEqual({});
  });
});

describe('deprecation', () => {
  it('addMembers warns once, naming 30 September 2026', async () => {
    const { logger, lines } = capturingLogger();
    const platform = await startFakePlatform({ body: { success: true } });
    const api = new BotApi({ token: TOKEN, baseUrl: platform.url, logger });
    cleanups.push(
      () => platform.close(),
      () => api.close(),
    );
    await api.addMembers({ chat_id: -1, user_ids: [1] });
    await api.addMembers({ chat_id: -1, user_ids: [2] });
    const warnings = lines.filter((l) => l.includes('deprecated'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('30 September 2026');
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, op: 'addMembers', component: 'api' });
  });
});
