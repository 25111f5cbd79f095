/**
 * `botflow run` with a `bots:` section, as a real process: two webhook bots on one port, each against a
 * sandbox of its own, each answering its own people through its own alias; a third whose token is refused
 * is reported alone and the others serve. SIGTERM stops them all (exit 0). No token appears in anything
 * the process printed or logged.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.ts';
import { flowsSaying, freePort, greeted } from '../support/bots.ts';
import { eventually } from '../support/eventually.ts';
import { runBotflow } from './child.ts';

const dir = mkdtempSync(join(tmpdir(), 'botflow-run-bots-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('botflow run with bots:', () => {
  it('serves every bot that can start on one webhook port, reports the one that cannot, and never prints a token', async () => {
    const [one, two, three] = await Promise.all([
      startSandbox({ limits: false }),
      startSandbox({ limits: false }),
      startSandbox({ limits: false }),
    ]);
    const port = await freePort();
    writeFileSync(join(dir, 'three.token'), 'refused-token-from-a-file\n');
    writeFileSync(
      join(dir, 'botflow.config.yaml'),
      `mode: webhook
webhook:
  host: 127.0.0.1
  port: ${port}
  url: http://127.0.0.1:${port}/hooks
  secret: deployment_secret_123
database:
  path: data/botflow.db
bots:
  one:
    token: { env: ONE_TOKEN }
    baseUrl: ${one.baseUrl}
    flows: ${flowsSaying(dir, 'one', 'Process one')}
  two:
    token: { env: TWO_TOKEN }
    baseUrl: ${two.baseUrl}
    flows: ${flowsSaying(dir, 'two', 'Process two')}
  three:
    token: { file: three.token }
    baseUrl: ${three.baseUrl}
    flows: ${flowsSaying(dir, 'three', 'Process three')}
`,
    );
    const env = { ONE_TOKEN: one.token, TWO_TOKEN: two.token };
    const run = runBotflow(['run'], { cwd: dir, env });
    try {
      await run.waitFor(/botflow is running 2 of 3 bot\(s\)/);
      await run.waitFor(/three: failed \(.*token/);
      expect(await greeted(one, 'Process one')).toEqual(['Process one']);
      expect(await greeted(two, 'Process two')).toEqual(['Process two']);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz?bot=one`);
      expect(ready.status).toBe(200);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
      await Promise.all([one.close(), two.close(), three.close()]);
    }
    const everything = run.stdout() + run.stderr();
    expect(everything).toContain('"bot":"three"');
    for (const token of [one.token, two.token, 'refused-token-from-a-file'])
      expect(everything).not.toContain(token);
  }, 90_000);

  it('with no token anywhere hosts every bot in one embedded sandbox; each answers its people there', async () => {
    const port = await freePort();
    const embedded = join(dir, 'embedded');
    mkdirSync(embedded);
    writeFileSync(
      join(embedded, 'botflow.config.yaml'),
      `sandbox:
  port: ${port}
bots:
  shop:
    flows: ${flowsSaying(dir, 'shop', 'Embedded shop')}
  news:
    flows: ${flowsSaying(dir, 'news', 'Embedded news')}
`,
    );
    const run = runBotflow(['run'], { cwd: embedded, env: {} });
    const base = `http://127.0.0.1:${port}`;
    const post = async (path: string, body: unknown) =>
      (await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json())) as { user_id: number };
    try {
      await run.waitFor(/botflow is running 2 of 2 bot\(s\)/);
      await run.waitFor(/pick a bot/);
      const { bots } = (await fetch(`${base}/_sandbox/bots`).then((r) => r.json())) as {
        bots: { id: number; name: string }[];
      };
      expect(bots.map((bot) => bot.name)).toEqual(['shop', 'news']);
      const ann = await post('/_sandbox/users', { first_name: 'Ann' });
      const said: Record<string, string[]> = {};
      for (const bot of bots) {
        await post('/_sandbox/start', { user_id: ann.user_id, bot_id: bot.id });
        said[bot.name] = await eventually(`${bot.name}'s greeting`, async () => {
          const view = (await fetch(
            `${base}/_sandbox/view?user_id=${ann.user_id}&chat=dialog&bot_id=${bot.id}`,
          ).then((r) => r.json())) as { messages?: { from: string; text?: string }[] };
          const texts = (view.messages ?? []).filter((m) => m.from === 'bot').map((m) => m.text ?? '');
          return texts.length > 0 && texts;
        });
      }
      expect(said).toEqual({ shop: ['Embedded shop'], news: ['Embedded news'] });
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
    }
    expect(existsSync(join(embedded, '.botflow', 'bots', 'shop.db'))).toBe(true);
    expect(existsSync(join(embedded, '.botflow', 'bots', 'news.db'))).toBe(true);
  }, 90_000);
});
