/**
 * `--bot <name>` on the commands that work on a bot's flows folder (test, storyboard, graph, schema),
 * its database (replay) or its token (webhook): each takes that bot's of `bots:`; a name that is not a
 * bot is a clear error; no token is printed.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { command as graph } from '../../src/cli/graph-command.ts';
import { runReplay } from '../../src/cli/replay-command.ts';
import { command as schema } from '../../src/cli/schema-command.ts';
import { command as storyboard } from '../../src/cli/storyboard-command.ts';
import { runTests } from '../../src/cli/test-command.ts';
import { command as webhook } from '../../src/cli/webhook-command.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { consoleOutput } from '../support/console-output.ts';

const dir = mkdtempSync(join(tmpdir(), 'botflow-cli-bots-flows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CONFIG = join(dir, 'botflow.config.yaml');
mkdirSync(join(dir, 'shop-flows'));
const configWith = (extra: string) =>
  writeFileSync(
    CONFIG,
    `database:
  path: data/botflow.db
${extra}bots:
  shop:
    token: { env: SHOP_TOKEN_FOR_CLI_TEST }
    flows: shop-flows
  news:
    token: { env: NEWS_TOKEN_FOR_CLI_TEST }
    flows: ${resolve('flows')}
`,
  );
configWith('');
const output = consoleOutput();

async function tests(args: string[]) {
  const lines: string[] = [];
  const code = await runTests(args, (line) => lines.push(line));
  return { code, out: lines.join('\n') };
}

describe('--bot on the flows commands', () => {
  it('botflow test --bot runs the transcripts of that bot’s flows folder', async () => {
    const news = await tests(['--bot', 'news', '--config', CONFIG]);
    expect(news.out).toContain('✓ help › /help explains and ends');
    expect(news.code).toBe(0);
    const shop = await tests(['--bot', 'shop', '--config', CONFIG]);
    expect(shop.code).toBe(2);
    expect(shop.out).toContain(`no transcripts (*.test.yaml) in ${join(dir, 'shop-flows')}`);
    expect(
      await output.run({ summary: '', run: async (a) => (await tests(a)).code }, [
        '--bot',
        'nobody',
        '--config',
        CONFIG,
      ]),
    ).toBe(2);
    expect(output.lines.join('\n')).toMatch(/botflow test: .*no bot named "nobody".*shop, news/);
  });

  it('storyboard, graph and schema --bot take that bot’s flows', async () => {
    const out = join(dir, 'news.html');
    expect(await output.run(storyboard, ['--bot', 'news', '--config', CONFIG, '--out', out])).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('signup');
    expect(await output.run(graph, ['signup', '--bot', 'news', '--config', CONFIG])).toBe(0);
    expect(await output.run(graph, ['signup', '--bot', 'shop', '--config', CONFIG])).toBe(2);
    expect(output.lines.join('\n')).toContain(join(dir, 'shop-flows', 'signup.flow.yaml'));
    expect(await output.run(schema, ['--bot', 'nobody', '--config', CONFIG])).toBe(2);
    expect(output.lines.join('\n')).toMatch(/botflow schema: .*no bot named "nobody"/);
  });

  it('replay --bot reads that bot’s own database', async () => {
    const lines: string[] = [];
    expect(await runReplay(['--bot', 'shop', '--config', CONFIG], (line) => lines.push(line))).toBe(2);
    expect(lines.join('\n')).toContain(join(dir, 'data', 'bots', 'shop.db'));
    expect(existsSync(join(dir, 'data', 'bots', 'shop.db'))).toBe(false);
  });

  it('webhook --bot subscribes that bot with its token, at its route and with its secret', async () => {
    const sandbox = await startSandbox({ limits: false });
    const news = await sandbox.addBot({ name: 'news' });
    process.env.SHOP_TOKEN_FOR_CLI_TEST = sandbox.token;
    process.env.NEWS_TOKEN_FOR_CLI_TEST = news.token;
    configWith(
      `baseUrl: ${sandbox.baseUrl}\nwebhook:\n  url: https://bots.example.com/hooks\n  secret: deployment_secret_1\n`,
    );
    try {
      expect(await output.run(webhook, ['list', '--config', CONFIG])).toBe(2);
      expect(output.lines.join('\n')).toMatch(
        /serves 2 bots: say which with botflow webhook --bot <name> \(shop, news\)/,
      );
      expect(await output.run(webhook, ['set', '--bot', 'news', '--config', CONFIG])).toBe(0);
      expect(output.lines.join('\n')).toMatch(
        /subscribed https:\/\/bots\.example\.com\/hooks\/webhook\/[\w-]{8,}/,
      );
      expect(await output.run(webhook, ['list', '--bot', 'news', '--config', CONFIG])).toBe(0);
      expect(output.lines.join('\n')).toContain('https://bots.example.com/hooks/webhook/');
      // The other bot has no subscription: each bot its own token.
      expect(await output.run(webhook, ['list', '--bot', 'shop', '--config', CONFIG])).toBe(0);
      expect(output.lines.join('\n')).toContain('no webhook subscriptions');
      expect(output.lines.join('\n')).not.toContain(news.token);
      expect(output.lines.join('\n')).not.toContain(sandbox.token);
    } finally {
      delete process.env.SHOP_TOKEN_FOR_CLI_TEST;
      delete process.env.NEWS_TOKEN_FOR_CLI_TEST;
      configWith('');
      await sandbox.close();
    }
  });
});
