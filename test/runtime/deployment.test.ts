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
import { BotApi } from '../../src/client/client.ts';
import { loadConfig } from '../../src/runtime/config.ts';
import { defaultParts } from '../../src/runtime/default-parts.ts';
import { startDeployment } from '../../src/runtime/deployment.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { flowsSaying as flowsIn, freePort, greeted, keptLogger, tempBotsCatalog } from '../support/bots.ts';
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
    const catalog = tempBotsCatalog();
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
      // Webhook bots start cold (docs/bots.md): ready once their subscriptions are in place.
      const [a, b] = deployment.bots();
      expect(a?.status).toBe('idle');
      expect(b?.status).toBe('idle');
      await eventually(
        'the deployment ready',
        async () => (await fetch(`${deployment.address}/readyz`)).status === 200,
      );
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

      // Each bot subscribed its own alias URL (never the token in it); removing a bot ends its subscription.
      const api = new BotApi({ token: one.token, baseUrl: one.baseUrl });
      const before = await api.getSubscriptions();
      expect(before.subscriptions.map((x) => x.url)).toEqual([
        `http://127.0.0.1:${port}/hooks/webhook/${a!.alias}`,
      ]);
      await deployment.remove('one');
      expect((await api.getSubscriptions()).subscriptions).toEqual([]);
      expect((await post(a!.alias, 'deployment_secret')).status).toBe(404);
      await api.close();
    } finally {
      await deployment.stop();
      await Promise.all([one.close(), two.close()]);
    }
    const log = lines.join('');
    for (const token of Object.values(env)) expect(log).not.toContain(token);
  }, 60_000);
});
