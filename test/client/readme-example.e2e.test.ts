/** The example at the top of docs/client.md runs as written against a local server. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakePlatform, payload, startFakePlatform } from './fake-platform.ts';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const doc = readFileSync(join(repo, 'docs/client.md'), 'utf8');
const code = /```ts\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
const dir = mkdtempSync(join(tmpdir(), 'botflow-readme-'));
const script = join(dir, 'example.mts');
writeFileSync(script, code.replace("from 'botflow-engine'", `from '${join(repo, 'src/index.ts')}'`));

const message = (payload('update.message_created.json') as { updates: Array<{ message: unknown }> })
  .updates[0]!.message;
const platforms: FakePlatform[] = [];
afterAll(async () => {
  for (const p of platforms) await p.close();
  rmSync(dir, { recursive: true, force: true });
});

async function runExample(platform: FakePlatform) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BOT_TOKEN: 'readme-token',
    BOT_API_URL: platform.url,
    USER_ID: '42',
  };
  delete env.BOT_CA_FILES;
  return run(process.execPath, ['--import', 'tsx', script], { cwd: repo, env, timeout: 60_000 }).then(
    (r) => ({ ...r, code: 0 }),
    (e: { stdout: string; stderr: string; code: number }) => e,
  );
}

describe('client page example', () => {
  it('has an example, importing from the package', () => {
    expect(code).toContain('new BotApi');
    expect(code).toContain("from 'botflow-engine'");
  });

  it('sends a message with an inline keyboard and pins it', async () => {
    const platform = await startFakePlatform((req) => {
      if (req.path === '/me') return { body: payload('botInfo.ok.json') };
      if (req.path === '/messages') return { body: { message } };
      return { body: { success: false, message: 'not allowed' } };
    });
    platforms.push(platform);
    const result = await runExample(platform);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'I am @test-bot (123123123)\nsent mid.ffffbdb48e6c3775019d496b34394b84\nnot pinned: not allowed\n',
    );
    const send = platform.requests.find((r) => r.path === '/messages')!;
    expect(send.query).toEqual({ user_id: '42' });
    expect(send.headers.authorization).toBe('readme-token');
    expect(JSON.stringify(send.body)).toContain('"type":"inline_keyboard"');
  }, 90_000);

  it('reports a platform error in plain words', async () => {
    const platform = await startFakePlatform({ status: 401, body: payload('error.invalid-token.json') });
    platforms.push(platform);
    const result = await runExample(platform);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('getMyInfo failed with HTTP 401 verify.token: Invalid access_token');
    expect(result.stderr).not.toContain('readme-token');
  }, 90_000);
});
