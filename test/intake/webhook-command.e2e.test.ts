/** `botflow webhook` as a child process against the sandbox: set, list, delete, and refusals before any call. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/start.ts';

const run = promisify(execFile);
const BIN = new URL('../../bin/botflow.js', import.meta.url).pathname;

let sandbox: Sandbox;
let api: BotApi;
beforeEach(async () => {
  sandbox = await startSandbox({ limits: false });
  api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
});
afterEach(async () => {
  await api.close();
  await sandbox.close();
});

describe('botflow webhook', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'botflow-cli-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  const botflow = (...args: string[]) =>
    run(process.execPath, [BIN, 'webhook', ...args], {
      cwd,
      env: { ...process.env, BOTFLOW_TOKEN: sandbox.token, BOTFLOW_BASE_URL: sandbox.baseUrl },
    });

  it('sets, lists and deletes a subscription', { timeout: 60_000 }, async () => {
    const url = 'http://127.0.0.1:9/botflow';
    const set = await botflow(
      'set',
      url,
      '--secret',
      's3cret_value',
      '--types',
      'message_created,bot_started',
    );
    expect(set.stdout).toContain(`subscribed ${url} (message_created,bot_started)`);
    expect((await api.getSubscriptions()).subscriptions[0]).toMatchObject({
      url,
      update_types: ['message_created', 'bot_started'],
    });
    const list = await botflow('list');
    expect(list.stdout).toMatch(new RegExp(`^${url}  message_created,bot_started since `, 'm'));
    expect(list.stdout + list.stderr).not.toContain(sandbox.token);
    await botflow('delete', url);
    expect((await api.getSubscriptions()).subscriptions).toEqual([]);
    expect((await botflow('list')).stdout).toContain('no webhook subscriptions');
  });

  it('refuses an unknown update type and a bad secret before calling the platform', {
    timeout: 60_000,
  }, async () => {
    const bad = await botflow('set', 'http://127.0.0.1:9/x', '--types', 'message_createdd').catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown update types: message_createdd');
    const secret = await botflow('set', 'http://127.0.0.1:9/x', '--secret', 'a b').catch((e) => e);
    expect(secret.stderr).toContain('--secret must be 5..256 characters');
    expect((await api.getSubscriptions()).subscriptions).toEqual([]);
  });
});
