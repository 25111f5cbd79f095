/**
 * A fault-injecting proxy between botflow and the sandbox, over real HTTP: an outage (connections reset
 * and 503s) for a while, and ambiguous failures (the sandbox handles the request, then the answer is lost
 * or replaced by a 502) on a share of the sends.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

export interface FaultProxy {
  url: string;
  /** Every request fails (reset or 503) until `until` (ms since the epoch). */
  outageUntil(until: number): void;
  /** This share (0..1) of POST /messages is handled by the platform and then answered with a fault. */
  ambiguousShare(share: number): void;
  stats: { forwarded: number; outage: number; ambiguous: number };
  close(): Promise<void>;
}

export async function startFaultProxy(target: string, random: () => number): Promise<FaultProxy> {
  let outage = 0;
  let share = 0;
  const stats = { forwarded: 0, outage: 0, ambiguous: 0 };
  const read = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
    });
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const body = await read(req);
    if (Date.now() < outage) {
      stats.outage++;
      if (random() < 0.5) req.socket.destroy();
      else res.writeHead(503, { 'content-type': 'application/json' }).end('{"code":"service.unavailable"}');
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await request(`${target}${req.url}`, {
      method: req.method as 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const text = Buffer.from(await answer.body.arrayBuffer());
    stats.forwarded++;
    if (req.method === 'POST' && req.url?.startsWith('/messages') && random() < share) {
      stats.ambiguous++; // the platform has the message; its answer never arrives
      if (random() < 0.5) req.socket.destroy();
      else res.writeHead(502, { 'content-type': 'application/json' }).end('{"code":"bad.gateway"}');
      return;
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(answer.headers)) if (typeof v === 'string') out[k] = v;
    delete out['content-length'];
    delete out['transfer-encoding'];
    res.writeHead(answer.statusCode, out).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    outageUntil: (until) => {
      outage = until;
    },
    ambiguousShare: (s) => {
      share = s;
    },
    stats,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
