/**
 * TLS trust with the platform's kind of chain (root CA → sub CA → server), generated at test time:
 * extra CAs are added to the bundled roots, for the API host and the upload hosts alike.
 */
import { rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotApi, type BotApiOptions } from '../../src/client/client.ts';
import { NetworkError, UsageError } from '../../src/client/errors.ts';
import { connectOptions } from '../../src/client/transport.ts';
import { generateChain, type TestChain } from './tls-chain.ts';

let chain: TestChain;
const servers: https.Server[] = [];

async function serve(cert: string, key: string, body: unknown): Promise<string> {
  const server = https.createServer({ cert, key }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const BOT = { user_id: 1, first_name: 'bot', is_bot: true };
let withChain: string; // sends leaf + sub CA
let leafOnly: string; // sends only its leaf
let wrongName: string; // valid chain, certificate for another host

beforeAll(async () => {
  chain = generateChain();
  withChain = await serve(chain.leaf + chain.sub, chain.leafKey, BOT);
  leafOnly = await serve(chain.leaf, chain.leafKey, BOT);
  wrongName = await serve(chain.otherLeaf + chain.sub, chain.otherLeafKey, BOT);
}, 60_000);

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  rmSync(chain.dir, { recursive: true, force: true });
});

async function getMyInfo(options: Omit<BotApiOptions, 'token'>): Promise<unknown> {
  const api = new BotApi({ token: 'tls-token', ...options });
  try {
    return await api.getMyInfo();
  } catch (err) {
    return err;
  } finally {
    await api.close();
  }
}

describe('TLS trust', () => {
  it('trusts the platform chain once its root CA is configured (file)', async () => {
    expect(await getMyInfo({ baseUrl: withChain, caFiles: [chain.rootFile] })).toMatchObject(BOT);
  });

  it('trusts the chain with CA contents too (string or Buffer)', async () => {
    expect(await getMyInfo({ baseUrl: withChain, caCertificates: [Buffer.from(chain.root)] })).toMatchObject(
      BOT,
    );
  });

  it('refuses an untrusted chain with a plain-words error, never sent', async () => {
    const err = (await getMyInfo({ baseUrl: withChain })) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.sent).toBe(false);
    expect(err.code).toBe('UNABLE_TO_GET_ISSUER_CERT_LOCALLY');
    expect(err.message).toBe(
      "getMyInfo: the server's certificate is not trusted (UNABLE_TO_GET_ISSUER_CERT_LOCALLY): add the platform's root and sub CA with caFiles",
    );
  });

  it('a server sending only its leaf works when both root and sub CA are configured', async () => {
    expect(await getMyInfo({ baseUrl: leafOnly, caFiles: [chain.rootFile, chain.subFile] })).toMatchObject(
      BOT,
    );
    const rootOnly = (await getMyInfo({ baseUrl: leafOnly, caFiles: [chain.rootFile] })) as NetworkError;
    expect(rootOnly).toBeInstanceOf(NetworkError);
    expect(rootOnly.message).toContain('not trusted');
    expect(rootOnly.sent).toBe(false);
  });

  it('a certificate for another host name is refused, naming the problem', async () => {
    const err = (await getMyInfo({ baseUrl: wrongName, caFiles: [chain.rootFile] })) as NetworkError;
    expect(err).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID', sent: false });
    expect(err.message).toContain('not issued for 127.0.0.1');
  });

  it('the same Agent trusts the upload host', async () => {
    const uploadHost = await serve(chain.leaf + chain.sub, chain.leafKey, { token: 'file-token' });
    const api = new BotApi({ token: 'tls-token', baseUrl: withChain, caFiles: [chain.rootFile] });
    try {
      const res = await request(`${uploadHost}/upload`, {
        method: 'POST',
        body: 'x',
        dispatcher: api.dispatcher,
      });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toEqual({ token: 'file-token' });
    } finally {
      await api.close();
    }
  });

  it('extra CAs are added to the bundled public roots, not instead of them', () => {
    const ca = connectOptions({ caFiles: [chain.rootFile, chain.subFile] }).ca ?? [];
    expect(tls.rootCertificates.length).toBeGreaterThan(50);
    expect(ca).toEqual([...tls.rootCertificates, chain.root, chain.sub]);
    expect(connectOptions({}).ca).toBeUndefined(); // no extras: Node's default trust
  });

  it('bad CA configuration is refused when the client is created', () => {
    const notPem = join(chain.dir, 'not-a-cert.txt');
    writeFileSync(notPem, 'hello');
    const make = (o: Partial<BotApiOptions>) => () => new BotApi({ token: 't', baseUrl: withChain, ...o });
    expect(make({ caFiles: [join(chain.dir, 'missing.pem')] })).toThrow(UsageError);
    expect(make({ caFiles: [join(chain.dir, 'missing.pem')] })).toThrow(/caFiles\[0\]: cannot read .*ENOENT/);
    expect(make({ caFiles: [chain.rootFile, notPem] })).toThrow(/caFiles\[1\]: .* holds no PEM certificate/);
    expect(make({ caCertificates: ['nope'] })).toThrow(/caCertificates\[0\]: is not a PEM certificate/);
  });
});
