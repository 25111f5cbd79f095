/** createBot(): the runtime of `botflow run` inside a process of your own, in-process against the sandbox. */
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, createBot } from '../../src/index.ts';
import { startSandbox } from '../../src/sandbox/index.ts';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const FLOWS = fileURLToPath(new URL('../../flows', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'botflow-createbot-'));
const quiet = pino({ level: 'silent' });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createBot', () => {
  it('refuses settings it does not know, saying where and what was meant', async () => {
    const attempt = createBot({
      config: { flows: { dir: FLOWS }, databse: { path: 'x.db' } } as never,
      env: {},
      cwd: dir,
      logger: quiet,
    });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      /config\.databse\.path: is not a botflow setting; did you mean database\.path\?/,
    );
  });

  it('reports code settings that cannot work with the key as written in code', async () => {
    const attempt = createBot({
      config: { token: 'a-token', mode: 'webhook', flows: { dir: FLOWS } },
      env: {},
      cwd: dir,
      logger: quiet,
    });
    await expect(attempt).rejects.toThrow(/webhook\.url|BOTFLOW_WEBHOOK_URL/);
  });

  it('mounts its webhook on an app of yours, under a prefix, and answers a person', async () => {
    const sandbox = await startSandbox({ limits: false });
    // webhook.url is needed before the app may listen (plugins come first): learn a free port.
    const port = await freePort();
    const mine = Fastify();
    mine.get('/health', async () => ({ ok: true }));
    const bot = await createBot({
      config: {
        token: sandbox.token,
        baseUrl: sandbox.baseUrl,
        mode: 'webhook',
        webhook: { url: `http://127.0.0.1:${port}/bot/updates`, secret: 'mounted_secret' },
        flows: { dir: FLOWS, watch: false },
        database: { path: join(dir, 'mounted.db') },
      },
      env: {},
      cwd: dir,
      logger: quiet,
      mountWebhook: true,
    });
    try {
      expect(bot.webhook).toBeDefined();
      expect(bot.addresses.webhook).toBeUndefined(); // no port of its own
      await mine.register(bot.webhook!, { prefix: '/bot/updates' });
      await mine.listen({ host: '127.0.0.1', port });
      // The app's own routes keep their JSON parsing; the plugin's secret check is its own.
      expect((await mine.inject({ method: 'GET', url: '/health' })).json()).toEqual({ ok: true });
      const refused = await mine.inject({
        method: 'POST',
        url: '/bot/updates',
        payload: { update_type: 'x' },
      });
      expect(refused.statusCode).toBe(401);

      const ann = await sandbox.control.createUser({ first_name: 'Ann' });
      await sandbox.control.startBot(ann.user_id);
      const view = await sandbox.control.waitForView(
        ann.user_id,
        'dialog',
        (v) => v.messages.some((m) => m.from === 'bot'),
        {
          timeoutMs: 15_000,
        },
      );
      expect(view.messages.find((m) => m.from === 'bot')?.text).toContain('What is your');
    } finally {
      const closed = await bot.close();
      expect(closed.clean).toBe(true);
      // After close, deliveries are refused with 503 so that the platform delivers them again.
      const late = await mine.inject({
        method: 'POST',
        url: '/bot/updates',
        headers: { 'x-svc-bot-api-secret': 'mounted_secret' },
        payload: { update_type: 'bot_started', timestamp: 1, chat_id: 1, user: { user_id: 1, name: 'x' } },
      });
      expect(late.statusCode).toBe(503);
      await mine.close();
      await sandbox.close();
    }
  }, 30_000);
});
