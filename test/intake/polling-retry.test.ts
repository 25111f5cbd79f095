import Fastify from 'fastify';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { startPolling } from '../../src/intake/polling.ts';
import { KV_KEYS, KvStore } from '../../src/store/kv.ts';
import { eventually } from '../support/eventually.ts';
import { tempDatabase } from './helpers.ts';

let env: ReturnType<typeof tempDatabase>;
beforeEach(() => {
  env = tempDatabase();
});
afterEach(() => env.cleanup());

it('backs off on 503, waits out 429 Retry-After, survives a dropped connection, then commits', async () => {
  // A platform having a bad minute: each GET /updates gets the next answer of this script.
  const seen: { at: number; marker: string | undefined }[] = [];
  // Later polls are long polls with nothing to say: held until the test ends (the real platform holds them).
  let endPolls!: () => void;
  const ended = new Promise<void>((resolve) => {
    endPolls = resolve;
  });
  const platform = Fastify();
  platform.get('/subscriptions', async () => ({ subscriptions: [] }));
  platform.get('/updates', async (request, reply) => {
    seen.push({ at: Date.now(), marker: (request.query as { marker?: string }).marker });
    switch (seen.length) {
      case 1:
        return reply.code(503).send({ code: 'service.unavailable', message: 'try later' });
      case 2:
        return reply
          .code(429)
          .header('retry-after', '1')
          .send({ code: 'too.many.requests', message: 'slow down' });
      case 3:
        request.raw.socket.destroy();
        return reply;
      case 4:
        return {
          updates: [
            { update_type: 'bot_started', timestamp: 1, chat_id: 5, user: { user_id: 7, first_name: 'Я' } },
          ],
          marker: 42,
        };
      default:
        await ended;
        return { updates: [], marker: 42 };
    }
  });
  const baseUrl = await platform.listen({ port: 0, host: '127.0.0.1' });
  const api = new BotApi({ token: 'test-token', baseUrl });
  const warnings: string[] = [];
  const logger = { info() {}, error() {}, warn: (o: { err?: Error }) => o.err && warnings.push(o.err.name) };
  const poller = startPolling({ api, db: env.db, timeout: 1, initialBackoffMs: 10, logger });
  try {
    await eventually('the poll after the committed batch', () => seen.length >= 5, 20_000);
    expect(warnings).toEqual(['ApiError', 'ApiError', 'NetworkError']);
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(1000); // Retry-After: 1 was honoured
    expect(env.inbox.nextPending()[0]).toMatchObject({ updateType: 'bot_started', conversationKey: 'u:7' });
    expect(new KvStore(env.db).get(KV_KEYS.pollingMarker)).toBe('42');
    expect(seen.slice(0, 4).map((s) => s.marker)).toEqual([undefined, undefined, undefined, undefined]);
    expect(seen[4]!.marker).toBe('42');
  } finally {
    endPolls();
    await poller.stop();
    await api.close();
    await platform.close();
  }
});
