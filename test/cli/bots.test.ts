/**
 * The CLI and many bots: `--bot <name>` selects one bot's database (its own SQLite file) and flows; several
 * bots and no `--bot` is a clear error listing them; `botflow migrate` without `--bot` migrates every
 * bot's file. `botflow bots add` checks the token with GET /me (a refused one is a clear error, the token
 * never printed) and stores the bot's id; pause, resume, remove and list go through the catalog.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBots } from '../../src/cli/bots-command.ts';
import { command as check } from '../../src/cli/check-command.ts';
import { command as migrate } from '../../src/cli/migrate-command.ts';
import { command as stats } from '../../src/cli/stats-command.ts';
import { ConfigError, loadConfig } from '../../src/runtime/config.ts';
import { botConfigFor } from '../../src/runtime/config-bots.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { tempBotsCatalog } from '../support/bots.ts';
import { consoleOutput } from '../support/console-output.ts';

const dir = mkdtempSync(join(tmpdir(), 'botflow-cli-bots-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CONFIG = join(dir, 'botflow.config.yaml');
writeFileSync(
  CONFIG,
  `database:
  path: data/botflow.db
bots:
  shop:
    token: { env: SHOP_TOKEN }
  news:
    token: { file: news.token }
    flows: news-flows
`,
);
const output = consoleOutput();

describe('--bot', () => {
  it('several bots and no --bot: an error listing their names', async () => {
    expect(await output.run(stats, ['--config', CONFIG])).toBe(2);
    expect(output.lines.join('\n')).toMatch(
      /serves 2 bots: say which with botflow stats --bot <name> \(shop, news\)/,
    );
    expect(await output.run(stats, ['--config', CONFIG, '--bot', 'nobody'])).toBe(2);
    expect(output.lines.join('\n')).toMatch(/no bot named "nobody".*shop, news/);
  });

  it('botflow migrate migrates every bot its own file; --bot one of them; stats --bot reads that file', async () => {
    expect(await output.run(migrate, ['--config', CONFIG])).toBe(0);
    expect(existsSync(join(dir, 'data', 'bots', 'shop.db'))).toBe(true);
    expect(existsSync(join(dir, 'data', 'bots', 'news.db'))).toBe(true);
    expect(await output.run(migrate, ['--config', CONFIG, '--bot', 'news', '--status'])).toBe(0);
    expect(output.lines.join('\n')).toContain('applied');
    expect(await output.run(stats, ['--config', CONFIG, '--bot', 'shop', '--json'])).toBe(0);
  });

  it('botflow check --bot checks the flows folder of that bot', async () => {
    mkdirSync(join(dir, 'news-flows'), { recursive: true });
    writeFileSync(join(dir, 'news-flows', 'broken.flow.yaml'), 'flow: broken\nstart: nowhere\nsteps: {}\n');
    process.env.BOTFLOW_CONFIG = CONFIG;
    try {
      expect(await output.run(check, ['--bot', 'news'])).toBe(1);
      expect(output.lines.join('\n')).toContain('broken.flow.yaml');
      expect(await output.run(check, ['--bot', 'nobody'])).toBe(2);
      expect(output.lines.join('\n')).toMatch(/no bot named "nobody"/);
    } finally {
      delete process.env.BOTFLOW_CONFIG;
    }
  });

  it('botConfigFor: the token read from its place, the flows its own or the shared ones', () => {
    writeFileSync(join(dir, 'news.token'), 'news-token-value\n');
    const config = loadConfig({ argv: ['--config', CONFIG], env: {}, cwd: dir });
    const news = botConfigFor(config, 'news', { env: {} });
    expect(news.token?.reveal()).toBe('news-token-value');
    expect(news.flows.dir).toBe(join(dir, 'news-flows'));
    expect(() => botConfigFor(config, 'shop', { env: {} })).toThrow(/SHOP_TOKEN is not set/);
    const shop = botConfigFor(config, 'shop', { env: { SHOP_TOKEN: 't' } });
    expect(shop.flows.dir).toBe(config.flows.dir);
    expect(shop.database.path).toBe(join(dir, 'data', 'bots', 'shop.db'));
  });
});

describe('bots: in the configuration', () => {
  it('refuses a token written inline, and every other problem at once, each with where', () => {
    const file = join(dir, 'inline.yaml');
    writeFileSync(
      file,
      `bots:
  - name: shop
    token: "12345:secret-token"
  - name: Bad Name
    token: { env: X, file: y }
    limits: { requestsPerSecond: 99 }
`,
    );
    let error: ConfigError | undefined;
    try {
      loadConfig({ argv: ['--config', file], env: {}, cwd: dir });
    } catch (caught) {
      error = caught as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = error!.message;
    expect(text).toContain('inline.yaml:3:12: bots.0.token must not be written in the configuration file');
    expect(text).toMatch(/inline\.yaml:4:11: .*a-z 0-9/);
    expect(text).toMatch(/inline\.yaml:5:12: .*exactly one of env/);
    expect(text).toMatch(/inline\.yaml:6:34: .*maximum is 30/);
    expect(text).not.toContain('secret-token');
  });

  it('no token anywhere: the embedded default for every bot; some bots with a token: the others need one', () => {
    const embedded = loadConfig({
      values: { bots: [{ name: 'shop' }, { name: 'news' }] },
      env: {},
      cwd: dir,
    });
    expect(embedded.embedded).toBe(true);
    expect(embedded.baseUrl).toBeUndefined();
    expect(embedded.bots?.map((bot) => bot.token)).toEqual([
      { env: 'BOTFLOW_SANDBOX_TOKEN_SHOP' },
      { env: 'BOTFLOW_SANDBOX_TOKEN_NEWS' },
    ]);
    expect(() =>
      loadConfig({
        values: { bots: [{ name: 'shop', token: { env: 'SHOP_TOKEN' } }, { name: 'news' }] },
        env: {},
        cwd: dir,
      }),
    ).toThrow(/bot news has no token: give token: \{ env: VAR \}/);
    expect(() =>
      loadConfig({
        values: { baseUrl: 'https://api.example.com', bots: [{ name: 'shop' }] },
        env: {},
        cwd: dir,
      }),
    ).toThrow(/bot shop has no token/);
  });

  it('webhook bots need webhook.url and a secret; names are unique', () => {
    expect(() =>
      loadConfig({
        env: {},
        cwd: dir,
        values: {
          mode: 'webhook',
          bots: [
            { name: 'a', token: { env: 'A' } },
            { name: 'a', token: { env: 'B' } },
          ],
        },
      }),
    ).toThrow(/webhook\.url[\s\S]*webhook\.secret[\s\S]*names are unique/);
  });
});

describe('botflow bots', () => {
  it('add checks the token with /me and stores the id; a refused token is a clear error without it; pause, resume, remove', async () => {
    const sandbox = await startSandbox({ limits: false });
    const catalog = tempBotsCatalog();
    const lines: string[] = [];
    const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      runBots([...args, '--config', CONFIG], {
        env: { ...env, BOTFLOW_BASE_URL: sandbox.baseUrl },
        cwd: dir,
        print: (line) => lines.push(line),
        error: (line) => lines.push(line),
        openCatalog: async () => ({ ...catalog, close: async () => {} }),
      });
    try {
      expect(
        await run(['add', 'promo', '--token-env', 'PROMO_TOKEN', '--json'], { PROMO_TOKEN: sandbox.token }),
      ).toBe(0);
      const record = await catalog.get('promo');
      expect(record).toMatchObject({ name: 'promo', tokenEnv: 'PROMO_TOKEN', paused: false });
      expect(record?.botId).toBeGreaterThan(0);
      expect(record?.alias).toMatch(/^[A-Za-z0-9_-]{16,}$/);

      expect(
        await run(['add', 'fake', '--token-env', 'FAKE_TOKEN'], { FAKE_TOKEN: 'refused-token-9876' }),
      ).toBe(1);
      expect(lines.at(-1)).toMatch(/fake: .*token/i);
      expect(await catalog.get('fake')).toBeUndefined();

      expect(await run(['pause', 'promo'])).toBe(0);
      expect((await catalog.get('promo'))?.paused).toBe(true);
      expect(await run(['resume', 'promo'])).toBe(0);
      expect((await catalog.get('promo'))?.paused).toBe(false);
      expect(await run(['list'])).toBe(0);
      expect(lines.at(-1)).toMatch(/promo\s+@\S+\s+serving/);
      expect(await run(['remove', 'nobody'])).toBe(1);
      expect(await run(['remove', 'promo'])).toBe(0);
      expect(lines.join('\n')).not.toContain(sandbox.token);
      expect(lines.join('\n')).not.toContain('refused-token-9876');
    } finally {
      await sandbox.close();
    }
  });
});
