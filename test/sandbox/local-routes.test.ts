/** The sandbox's unauthenticated pages answer only to this machine, and uploaded files cannot run as its pages. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { hostAllowed } from '../../src/sandbox/local-routes.ts';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('local pages and APIs', () => {
  it('answer to localhost and IP addresses, and refuse another site name with 403', async () => {
    sandbox = await startSandbox({ limits: false });
    const get = (url: string, host: string) => sandbox!.app.inject({ method: 'GET', url, headers: { host } });
    for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'app.localhost']) {
      expect((await get('/_sandbox/info', host)).statusCode, host).toBe(200);
    }
    for (const url of ['/_sandbox/info', '/_sandbox/users', '/_files/x']) {
      const refused = await get(url, 'rebind.attacker.example');
      expect(refused.statusCode, url).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'host.not.allowed' });
    }
    // The Bot API keeps its own rules (the token), whatever the Host: clients may use a service name.
    const api = await sandbox.app.inject({
      method: 'GET',
      url: '/me',
      headers: { host: 'sandbox.internal:8080', authorization: sandbox.token },
    });
    expect(api.statusCode).toBe(200);
  });

  it('allow the names they are given', () => {
    expect(hostAllowed('bot-dev.internal', ['bot-dev.internal'])).toBe(true);
    expect(hostAllowed('BOT-DEV.internal', ['bot-dev.internal'])).toBe(true);
    expect(hostAllowed('other.internal', ['bot-dev.internal'])).toBe(false);
  });

  it('serve an uploaded HTML file as an inert attachment', async () => {
    sandbox = await startSandbox({ limits: false });
    const ann = await sandbox.control.createUser({ first_name: 'Ann' });
    await sandbox.control.startBot(ann.user_id);
    await sandbox.control.sendMessage(ann.user_id, 'dialog', {
      files: [{ type: 'file', filename: 'page.html', text: '<script>alert(document.cookie)</script>' }],
    });
    const view = await sandbox.control.view(ann.user_id);
    const sent = view.messages.at(-1)!.message as {
      body: { attachments: Array<{ payload: { url: string } }> };
    };
    const url = new URL(sent.body.attachments[0]!.payload.url);
    const file = await sandbox.app.inject({
      method: 'GET',
      url: url.pathname,
      headers: { host: '127.0.0.1' },
    });
    expect(file.statusCode).toBe(200);
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expect(file.headers['content-disposition']).toBe('attachment; filename="page.html"');
    expect(file.headers['content-security-policy']).toContain('sandbox');
  });

  it('warn when the sandbox listens beyond this machine', async () => {
    const lines: string[] = [];
    const logger = pino(
      {},
      new Writable({
        write(chunk: Buffer, _e, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    sandbox = await startSandbox({ limits: false, host: '0.0.0.0', logger });
    expect(lines.some((l) => l.includes('have no authentication') && l.includes('"level":40'))).toBe(true);
  });
});
