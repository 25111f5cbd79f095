import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { NetworkError } from '../../src/client/errors.ts';
import { explainFailure, selfCheck } from '../../src/runtime/self-check.ts';
import { createTestPki, type TestPki } from './tls-fixture.ts';

const TOKEN = 'self-check-token-that-must-not-leak';
const BOT = {
  user_id: 42,
  first_name: 'Helper',
  username: 'helper_bot',
  is_bot: true,
  last_activity_time: 1,
};

let dir: string;
let pki: TestPki;
const servers: Server[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-selfcheck-'));
  pki = createTestPki(dir);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

/** A stand-in Bot API: 200 with the bot for our token on GET /me, 401 verify.token otherwise. */
function answerMe(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) {
  res.setHeader('content-type', 'application/json');
  if (req.headers.authorization !== TOKEN) {
    res.statusCode = 401;
    res.end(JSON.stringify({ code: 'verify.token', message: 'Invalid access_token' }));
    return;
  }
  res.end(JSON.stringify(BOT));
}

async function listen(server: Server, scheme: 'http' | 'https'): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function check(baseUrl: string, options: { token?: string; caFiles?: string[] } = {}) {
  const api = new BotApi({
    token: options.token ?? TOKEN,
    baseUrl,
    ...(options.caFiles ? { caFiles: options.caFiles } : {}),
  });
  try {
    return await selfCheck(api, {
      baseUrl,
      timeoutMs: 10_000,
      ...(options.caFiles ? { caFiles: options.caFiles } : {}),
    });
  } finally {
    await api.close();
  }
}

describe('selfCheck', () => {
  it('names the bot when the token is accepted', async () => {
    const baseUrl = await listen(createServer(answerMe), 'http');
    const result = await check(baseUrl);
    expect(result).toMatchObject({ ok: true, bot: { id: 42, name: 'Helper', username: 'helper_bot' } });
    expect(result.message).toBe(`connected to ${baseUrl} as Helper (@helper_bot), id 42`);
  });

  it('says the platform refused the token, and never shows it', async () => {
    const baseUrl = await listen(createServer(answerMe), 'http');
    const wrong = 'wrong-token-value-123456';
    const result = await check(baseUrl, { token: wrong });
    expect(result).toMatchObject({ ok: false, problem: 'token', code: 'verify.token' });
    expect(result.message).toMatch(/^the platform refused the token \(verify\.token\): check BOTFLOW_TOKEN/);
    expect(result.message).not.toContain(wrong);
  });

  it('explains an untrusted certificate (server sends only its own) and the caFiles fix', async () => {
    const baseUrl = await listen(createHttpsServer({ key: pki.key, cert: pki.cert }, answerMe), 'https');
    const result = await check(baseUrl);
    expect(result).toMatchObject({ ok: false, problem: 'tls', code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(result.message).toContain(`the TLS certificate of ${new URL(baseUrl).host} is not trusted`);
    expect(result.message).toContain('add its root CA and issuing sub CA (PEM files) to caFiles');
    expect(result.message).toContain('BOTFLOW_CA_FILES');
  });

  it('explains an untrusted root when the server sends its whole chain', async () => {
    const chain = `${pki.cert}\n${pki.ca}`;
    const baseUrl = await listen(createHttpsServer({ key: pki.key, cert: chain }, answerMe), 'https');
    const result = await check(baseUrl);
    expect(result).toMatchObject({ ok: false, problem: 'tls', code: 'SELF_SIGNED_CERT_IN_CHAIN' });
    expect(result.message).toContain('caFiles');
  });

  it('passes once the CA file is configured', async () => {
    const baseUrl = await listen(createHttpsServer({ key: pki.key, cert: pki.cert }, answerMe), 'https');
    const result = await check(baseUrl, { caFiles: [pki.caFile] });
    expect(result).toMatchObject({ ok: true, bot: { id: 42 } });
  });

  it('says the base URL is unreachable when nothing listens there', async () => {
    const server = createServer(answerMe);
    const baseUrl = await listen(server, 'http');
    await new Promise((resolve) => server.close(resolve));
    const result = await check(baseUrl);
    expect(result).toMatchObject({ ok: false, problem: 'unreachable', code: 'ECONNREFUSED' });
    expect(result.message).toBe(
      `the base URL ${baseUrl} is unreachable (ECONNREFUSED): check BOTFLOW_BASE_URL, DNS, a firewall or proxy between this machine and the platform`,
    );
  });

  it('says the base URL is not the Bot API when /me is not found', async () => {
    const baseUrl = await listen(
      createServer((_req, res) => {
        res.statusCode = 404;
        res.end('<html>not here</html>');
      }),
      'http',
    );
    const result = await check(baseUrl);
    expect(result).toMatchObject({ ok: false, problem: 'not-bot-api' });
    expect(result.message).toContain('the base URL does not point at the Bot API');
  });

  it('words the remaining TLS failures: wrong host name, expired certificate, partial CA files', () => {
    const context = { baseUrl: 'https://api.example.com', caFiles: ['/etc/root.pem'] };
    const failure = (code: string) =>
      explainFailure(
        new NetworkError({ operation: 'getMyInfo', sent: false, code, message: code, cause: null }),
        context,
      );
    expect(failure('ERR_TLS_CERT_ALTNAME_INVALID').message).toContain('issued for another name');
    expect(failure('CERT_HAS_EXPIRED').message).toContain("check this machine's clock");
    expect(failure('UNABLE_TO_VERIFY_LEAF_SIGNATURE').message).toContain(
      'the issuing sub CA must be in caFiles as well as the root',
    );
    expect(failure('ENOTFOUND').message).toContain('unreachable (ENOTFOUND: no such host)');
  });
});
