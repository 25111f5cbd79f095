/**
 * Pausing a bot of a deployment holds its timers in its database: a reminder that falls due while the bot
 * is paused is sent once it resumes (docs/bots.md, "What pausing does"). And the catalog, written by
 * `botflow bots add|remove` from another process, adds and removes a bot while the deployment runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/runtime/config.ts';
import { defaultParts } from '../../src/runtime/default-parts.ts';
import { startDeployment } from '../../src/runtime/deployment.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { flowsSaying as flowsIn, greeted, keptLogger, tempBotsCatalog } from '../support/bots.ts';
import { eventually } from '../support/eventually.ts';

const dir = mkdtempSync(join(tmpdir(), 'botflow-deployment-pause-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a deployment while it runs', () => {
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
    const catalog = tempBotsCatalog();
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
