/**
 * Cold webhook bots (docs/bots.md "What an idle bot costs"): a webhook bot of a deployment opens nothing
 * until a delivery comes (its SQLite file is not open: no descriptor of the process points at it); a
 * delivery warms it and the person gets the reply; with nothing to do for `idleMs` it is stopped and cold
 * again; a reminder due while it is cold is sent (the deployment's one wake-up timer warms it); a wrong
 * secret on a cold bot is refused before anything is opened.
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/runtime/config.ts';
import { defaultParts } from '../../src/runtime/default-parts.ts';
import { type RunningDeployment, startDeployment } from '../../src/runtime/deployment.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { flowsSaying, freePort, greeted, keptLogger, tempBotsCatalog } from '../support/bots.ts';
import { eventually } from '../support/eventually.ts';

const dir = mkdtempSync(join(tmpdir(), 'botflow-cold-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether this process holds a descriptor on the bot's database file (or its -wal, -shm). */
function fileOpen(name: string): boolean {
  const wanted = join(dir, 'data', 'bots', `${name}.db`);
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(wanted);
    } catch {
      return false; // closed meanwhile
    }
  });
}

const statusOf = (deployment: RunningDeployment, name: string) =>
  deployment.bots().find((bot) => bot.name === name)?.status;

describe('cold webhook bots', () => {
  it('start cold, warm on a delivery, cool after idleMs, wake for a reminder; a wrong secret opens nothing; a restart does not subscribe again', async () => {
    const [one, two] = await Promise.all([startSandbox({ limits: false }), startSandbox({ limits: false })]);
    const port = await freePort();
    const env = { ONE_TOKEN: one.token, TWO_TOKEN: two.token };
    const config = loadConfig({
      env,
      cwd: dir,
      values: {
        mode: 'webhook',
        webhook: {
          host: '127.0.0.1',
          port,
          url: `http://127.0.0.1:${port}/hooks`,
          secret: 'deployment_secret',
        },
        database: { path: join(dir, 'data', 'botflow.db') },
        bots: [
          {
            name: 'one',
            token: { env: 'ONE_TOKEN' },
            baseUrl: one.baseUrl,
            flows: flowsSaying(dir, 'one', 'Cold one', '2s'),
          },
          {
            name: 'two',
            token: { env: 'TWO_TOKEN' },
            baseUrl: two.baseUrl,
            flows: flowsSaying(dir, 'two', 'Cold two'),
          },
        ],
      },
    });
    const { logger, lines } = keptLogger();
    const catalog = tempBotsCatalog();
    const deployment = await startDeployment(config, {
      logger,
      parts: defaultParts(),
      env,
      catalog,
      idleMs: 300,
    });
    try {
      expect(statusOf(deployment, 'one')).toBe('idle');
      expect(statusOf(deployment, 'two')).toBe('idle');
      expect(fileOpen('one') || fileOpen('two')).toBe(false);
      await eventually(
        'the deployment ready',
        async () => (await fetch(`${deployment.address}/readyz`)).status === 200,
      );
      expect((await fetch(`${deployment.address}/readyz?bot=two`)).status).toBe(200);

      // A wrong secret on a cold bot: 401, and the bot stays cold with nothing open.
      const wrong = await fetch(`${deployment.address}/hooks/webhook/${deployment.bots()[1]!.alias}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-bot-api-secret': 'not_the_secret' },
        body: JSON.stringify({ update_type: 'bot_started', timestamp: 1, chat_id: 1, user: { user_id: 1 } }),
      });
      expect(wrong.status).toBe(401);
      expect(statusOf(deployment, 'two')).toBe('idle');
      expect(fileOpen('two')).toBe(false);

      // A delivery warms the bot; the person gets the reply.
      expect(await greeted(two, 'Cold two')).toEqual(['Cold two']);
      expect(fileOpen('two')).toBe(true);
      // Nothing to do (its one reminder is an hour away): cold again, its file closed.
      await eventually('bot two cold again', () => statusOf(deployment, 'two') === 'idle');
      expect(fileOpen('two')).toBe(false);

      // Bot one asks, goes cold, and is warmed by the deployment's timer for its reminder 2 s later.
      const person = await one.control.createUser({ first_name: 'Bo' });
      await one.control.startBot(person.user_id);
      await eventually('bot one cold', () =>
        lines.some((line) => line.includes('bot one had nothing to do')),
      );
      // Its reminder's time is kept in the catalog (a restart wakes it then).
      expect((await catalog.get('one'))?.wakeAt).toBeGreaterThan(0);
      const view = await one.control.waitForView(
        person.user_id,
        'dialog',
        (v) => v.messages.some((m) => m.text?.includes('one is still waiting')),
        { timeoutMs: 15_000 },
      );
      expect(view.messages.filter((m) => m.from === 'bot').map((m) => m.text)).toEqual([
        'Cold one',
        'one is still waiting',
      ]);
      await deployment.stop();
      expect(fileOpen('one') || fileOpen('two')).toBe(false);

      // Its wake-up is kept in the catalog (none left: its one reminder was sent).
      expect((await catalog.get('one'))?.wakeAt).toBeUndefined();

      // The catalog keeps each subscription's digest: a restart asks the platform nothing, and is ready at once.
      expect((await catalog.get('two'))?.subscription).toMatch(/^[\w-]{32}$/);
      const again = keptLogger();
      const restarted = await startDeployment(config, {
        logger: again.logger,
        parts: defaultParts(),
        env,
        catalog,
        idleMs: 300,
      });
      try {
        expect(restarted.bots().map((bot) => bot.status)).toEqual(['idle', 'idle']);
        // A connection of its own: fetch's pool may still hold one to the stopped server on the same port.
        expect(await freshStatus(`${restarted.address}/readyz`)).toBe(200);
        expect(again.lines.join('')).not.toContain('webhook subscription');
        expect(await greeted(two, 'Cold two')).toEqual(['Cold two']);
      } finally {
        await restarted.stop();
      }
    } finally {
      await deployment.stop();
      await Promise.all([one.close(), two.close()]);
      await catalog.close();
    }
    const log = lines.join('');
    for (const token of Object.values(env)) expect(log).not.toContain(token);
  }, 60_000);

  it('a reminder due while the process was down is sent by the next start (the catalog keeps the wake-up)', async () => {
    const sandbox = await startSandbox({ limits: false });
    const port = await freePort();
    const env = { ONE_TOKEN: sandbox.token };
    const config = loadConfig({
      env,
      cwd: dir,
      values: {
        mode: 'webhook',
        webhook: { host: '127.0.0.1', port, url: `http://127.0.0.1:${port}/hooks`, secret: 'restart_secret' },
        database: { path: join(dir, 'restart', 'botflow.db') },
        bots: [
          {
            name: 'one',
            token: { env: 'ONE_TOKEN' },
            baseUrl: sandbox.baseUrl,
            flows: flowsSaying(dir, 'again', 'Asked once', '5s'),
          },
        ],
      },
    });
    const catalog = tempBotsCatalog();
    const first = keptLogger();
    const deployment = await startDeployment(config, {
      logger: first.logger,
      parts: defaultParts(),
      env,
      catalog,
      idleMs: 200,
    });
    const person = await sandbox.control.createUser({ first_name: 'Cy' });
    try {
      await eventually(
        'the deployment ready',
        async () => (await fetch(`${deployment.address}/readyz`)).status === 200,
      );
      await sandbox.control.startBot(person.user_id);
      await eventually('bot one cold', () =>
        first.lines.some((line) => line.includes('bot one had nothing to do')),
      );
    } finally {
      await deployment.stop();
    }
    expect((await catalog.get('one'))?.wakeAt).toBeGreaterThan(0);
    const second = keptLogger();
    const restarted = await startDeployment(config, {
      logger: second.logger,
      parts: defaultParts(),
      env,
      catalog,
      idleMs: 200,
    });
    try {
      const view = await sandbox.control.waitForView(
        person.user_id,
        'dialog',
        (v) => v.messages.some((m) => m.text?.includes('again is still waiting')),
        { timeoutMs: 20_000 },
      );
      expect(view.messages.filter((m) => m.from === 'bot').map((m) => m.text)).toEqual([
        'Asked once',
        'again is still waiting',
      ]);
      expect(second.lines.join('')).toContain('bot one is running');
    } finally {
      await restarted.stop();
      await sandbox.close();
      await catalog.close();
    }
  }, 60_000);
});

/** GET `url` on a new connection (no keep-alive pool): its status code. */
function freshStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    }).on('error', reject);
  });
}
