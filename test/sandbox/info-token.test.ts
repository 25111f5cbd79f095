/**
 * `GET /_sandbox/info` shows the bot token only for the embedded dev sandbox's own token on a loopback
 * interface (`showToken`): a developer's mini-app server validates or signs initData with it. A token
 * given to the sandbox (possibly a real platform's) and a sandbox reachable from other machines never
 * show it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { validateInitData } from '../../src/intake/mini-app.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const info = async (s: Sandbox) =>
  (await fetch(`${s.baseUrl}/_sandbox/info`)).json() as Promise<Record<string, unknown>>;

describe('/_sandbox/info', () => {
  it("shows the sandbox's own token on loopback when asked; initData it signs validates with it", async () => {
    sandbox = await startSandbox({ limits: false, showToken: true });
    expect(sandbox.tokenShown).toBe(true);
    const shown = await info(sandbox);
    expect(shown.token).toBe(sandbox.token);
    expect(String(shown.token)).toMatch(/^sandbox-token-/);

    // What a developer does with it: validate the initData an open_app button hands the mini-app.
    const me = await sandbox.control.createUser({ first_name: 'Ann' });
    await sandbox.control.startBot(me.user_id);
    const api = (op: string, body: unknown) =>
      fetch(`${sandbox!.baseUrl}/${op}?user_id=${me.user_id}`, {
        method: 'POST',
        headers: { authorization: String(shown.token), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const sent = await api('messages', {
      text: 'Open the form',
      attachments: [
        {
          type: 'inline_keyboard',
          payload: { buttons: [[{ type: 'open_app', text: 'Form', web_app: 'sandbox_bot', payload: 'p1' }]] },
        },
      ],
    });
    expect(sent.status).toBe(200);
    const message = ((await sent.json()) as { message: { body: { mid: string } } }).message;
    const pressed = (await sandbox.control.pressButton(me.user_id, message.body.mid, { text: 'Form' })) as {
      init_data?: string;
    };
    expect(validateInitData(pressed.init_data!, String(shown.token)).user?.id).toBe(me.user_id);
  });

  it('shows no token by default, for a token it was given, or beyond loopback', async () => {
    sandbox = await startSandbox({ limits: false });
    expect(await info(sandbox)).not.toHaveProperty('token');
    await sandbox.close();

    sandbox = await startSandbox({ limits: false, showToken: true, token: '12345:a-real-platform-token' });
    expect(sandbox.tokenShown).toBe(false);
    expect(JSON.stringify(await info(sandbox))).not.toContain('a-real-platform-token');
    await sandbox.close();

    sandbox = await startSandbox({ limits: false, showToken: true, host: '0.0.0.0' });
    expect(sandbox.tokenShown).toBe(false);
    const port = new URL(sandbox.baseUrl).port;
    const remote = (await (await fetch(`http://127.0.0.1:${port}/_sandbox/info`)).json()) as object;
    expect(remote).toHaveProperty('bot');
    expect(remote).not.toHaveProperty('token');
  });
});
