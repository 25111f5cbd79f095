/**
 * startDeployment: several bots in one process, each against a sandbox of its own (its `baseUrl`), each
 * with its own SQLite file. Polling and webhook bots get their own replies; a bot whose token is refused is
 * left out with its reason while the other serves; a wrong secret on one alias is refused and the other
 * works; an unknown alias is a bare 404; no token ever reaches a log line.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/runtime/config.ts';
import { defaultParts } from '../../src/runtime/default-parts.ts';
import { startDeployment } from '../../src/runtime/deployment.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { flowsSaying as flowsIn, freePort, greeted, keptLogger, memoryBotsCatalog } from '../support/bots.ts';
import { eventually } from '../support/eventually.ts';

const dir = mkdtempSync(join(tmpdir(), 'botflow-deployment-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const flowsSaying = (name: string, greeting: string) => flowsIn(dir, name, greeting);

describe('startDeployment', () => {
  it('serves two bots by polling, each its own flows, database and replies; a refused token is left out alone', async () => {
    const [one, two, bad] = await Promise.all([
      startSandbox({ limits: false }),
      startSandbox({ limits: false }),
      startSandbox({ limits: false }),
    ]);
    const env = { ONE_TOKEN: one.token, TWO_TOKEN: two.token, BAD_TOKEN: 'refused-token-xyz' };
    const config = loadConfig({
      env,
      cwd: dir,
      values: {
        database: { path: join(dir, 'polling', 'botflow.db') },
        bots: [
          {
            name: 'one',
            token: { env: 'ONE_TOKEN' },
            baseUrl: one.baseUrl,
            flows: flowsSaying('one', 'Hi from one'),
          },
          {
            name: 'two',
            token: { env: 'TWO_TOKEN' },
            baseUrl: two.baseUrl,
            flows: flowsSaying('two', 'Hi from two'),
          },
          { name: 'bad', token: { env: 'BAD_TOKEN' }, baseUrl: bad.baseUrl },
        ],
      },
    });
    const { logger, lines } = keptLogger();
    const catalog = memoryBotsCatalog();
    const deployment = await startDeployment(config, { logger, parts: defaultParts(), env, catalog });
    try {
      const byName = Object.fromEntries(deployment.bots().map((bot) => [bot.name, bot]));
      expect(byName.one?.status).toBe('running');
      expect(byName.two?.status).toBe('running');
      expect(byName.bad?.status).toBe('failed');
      expect(byName.bad?.reason).toMatch(/token/i);
      expect(byName.one?.botId).toBeGreaterThan(0);
      expect((await catalog.get('one'))?.botId).toBe(byName.one?.botId);

      expect(await greeted(one, 'Hi from one')).toEqual(['Hi from one']);
      expect(await greeted(two, 'Hi from two')).toEqual(['Hi from two']);
    } finally {
      await deployment.stop();
      await Promise.all([one.close(), two.close(), bad.close()]);
    }
    const log = lines.join('');
    expect(log).toContain('"bot":"bad"');
    for (const token of Object.values(env)) expect(log).not.toContain(token);
    // Each bot its own file under bots/.
    expect(existsSync(join(dir, 'polling', 'bots', 'one.db'))).toBe(true);
    expect(existsSync(join(dir, 'polling', 'bots', 'two.db'))).toBe(true);
  }, 60_000);

  it('routes webhooks by alias on one server: each bot its secret; a wrong secret is 401, an unknown alias 404', async () => {
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
        database: { path: join(dir, 'webhook', 'botflow.db') },
        bots: [
          {
            name: 'one',
            token: { env: 'ONE_TOKEN' },
            baseUrl: one.baseUrl,
            flows: flowsSaying('w1', 'Webhook one'),
          },
          {
            name: 'two',
            token: { env: 'TWO_TOKEN' },
            baseUrl: two.baseUrl,
            flows: flowsSaying('w2', 'Webhook two'),
          },
        ],
      },
    });
    const { logger, lines } = keptLogger();
    const deployment = await startDeployment(config, { logger, parts: defaultParts(), env });
    try {
      const [a, b] = deployment.bots();
      expect(a?.status).toBe('running');
      expect(b?.status).toBe('running');
      expect(a?.alias).not.toBe(b?.alias);
      expect(await greeted(one, 'Webhook one')).toEqual(['Webhook one']);
      expect(await greeted(two, 'Webhook two')).toEqual(['Webhook two']);

      const update = {
        update_type: 'bot_started',
        timestamp: 1,
        chat_id: 1,
        user: { user_id: 1, name: 'x' },
      };
      const post = (alias: string, secret: string) =>
        fetch(`${deployment.address}/hooks/webhook/${alias}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-svc-bot-api-secret': secret },
          body: JSON.stringify(update),
        });
      const wrong = await post(a!.alias, 'not_the_secret');
      expect(wrong.status).toBe(401);
      const unknown = await post('no-such-alias-000', 'deployment_secret');
      expect(unknown.status).toBe(404);
      expect(await unknown.text()).not.toMatch(/one|two|alias/);

      const ready = await fetch(`${deployment.address}/readyz`);
      expect(ready.status).toBe(200);
      expect((await fetch(`${deployment.address}/readyz?bot=two`)).status).toBe(200);
      expect((await fetch(`${deployment.address}/readyz?bot=nobody`)).status).toBe(404);

      await deployment.pause('two');
      expect((await fetch(`${deployment.address}/readyz?bot=two`)).status).toBe(503);
      expect((await fetch(`${deployment.address}/readyz`)).status).toBe(200); // paused bots do not count
      expect((await post(b!.alias, 'not_the_secret')).status).toBe(401);
    } finally {
      await deployment.stop();
      await Promise.all([one.close(), two.close()]);
    }
    const log = lines.join('');
    for (const token of Object.values(env)) expect(log).not.toContain(token);
  }, 60_000);

  it('a paused bot holds its timers in its database: a reminder due while paused is sent after resume; the catalog adds a bot at run time', async () => {
    const [one, two] = await Promise.all([startSandbox({ limits: false }), startSandbox({ limits: false })]);
    const env = { ONE_TOKEN: one.token, TWO_TOKEN: two.token };
    const config = loadConfig({
      env,
      cwd: dir,
      values: {
        // The defaults for bots added at run time: the platform, the shared flows.
        baseUrl: two.baseUrl,
        flows: { dir: flowsIn(dir, 'shared', 'Hi') },
        database: { path: join(dir, 'pause', 'botflow.db') },
        bots: [
          {
            name: 'one',
            token: { env: 'ONE_TOKEN' },
            baseUrl: one.baseUrl,
            flows: flowsIn(dir, 'p1', 'Paused one', '1s'),
          },
        ],
      },
    });
    const catalog = memoryBotsCatalog();
    const { logger } = keptLogger();
    const deployment = await startDeployment(config, {
      logger,
      parts: defaultParts(),
      env,
      catalog,
      catalogPollMs: 50,
    });
    try {
      const person = await one.control.createUser({ first_name: 'Ann' });
      await one.control.startBot(person.user_id);
      await one.control.waitForView(
        person.user_id,
        'dialog',
        (v) => v.messages.some((m) => m.from === 'bot'),
        {
          timeoutMs: 15_000,
        },
      );
      const askedAt = Date.now();
      expect((await deployment.pause('one')).status).toBe('paused');
      // The reminder falls due while the bot is paused: nothing runs it.
      await eventually('the reminder to fall due', () => Date.now() > askedAt + 1500);
      const during = await one.control.waitForView(person.user_id, 'dialog', () => true);
      expect(during.messages.filter((m) => m.from === 'bot').map((m) => m.text)).toEqual(['Paused one']);
      expect((await deployment.resume('one')).status).toBe('running');
      const after = await one.control.waitForView(
        person.user_id,
        'dialog',
        (v) => v.messages.some((m) => m.text === 'p1 is still waiting'),
        { timeoutMs: 15_000 },
      );
      expect(after.messages.filter((m) => m.from === 'bot').map((m) => m.text)).toEqual([
        'Paused one',
        'p1 is still waiting',
      ]);

      // `botflow bots add` from another process writes the catalog; the deployment picks it up.
      await catalog.add({
        name: 'late',
        alias: 'late-alias-123',
        tokenEnv: 'TWO_TOKEN',
        paused: false,
        addedAt: 1,
      });
      await eventually('the added bot to run', () =>
        deployment.bots().find((b) => b.name === 'late' && b.status === 'running'),
      );
      expect(await greeted(two, 'Hi')).toHaveLength(1);
      await catalog.remove('late');
      await eventually('the removed bot to go', () => !deployment.bots().some((b) => b.name === 'late'));
    } finally {
      await deployment.stop();
      await Promise.all([one.close(), two.close()]);
    }
  }, 60_000);
});
