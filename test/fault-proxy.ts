/**
 * A fault-injecting proxy between botflow and the sandbox, over real HTTP: an outage (connections reset
 * and 503s) for a while, and ambiguous failures (the sandbox handles the request, then the answer is lost:
 * a 502 or 500, a reset socket, or no answer until the client gives up) on a share of the calls it is told
 * to fault (by default POST /messages). Upload URLs handed out by POST /uploads are rewritten to point at
 * the proxy, so that the upload host's answers can be lost too. Decisions come from the seeded `random`
 * the caller gives: a run can be repeated.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/** How an answer is lost: replaced by a 502 or a 500, the socket reset, or held until `hangMs` then reset. */
export type FaultMode = '502' | '500' | 'reset' | 'hang';

/** Which requests get ambiguous faults, named `METHOD path` (the path without its query). */
export type FaultTarget = (method: string, path: string) => boolean;

/** POST /messages: sends (the default). */
export const SENDS: FaultTarget = (method, path) => method === 'POST' && path.startsWith('/messages');
/** POST /uploads (the upload slot) and POST to the upload host (`/_upload/…` in the sandbox). */
export const UPLOADS: FaultTarget = (method, path) =>
  method === 'POST' && (path === '/uploads' || path.startsWith('/_upload/'));

/** A repeatable random in [0, 1) (mulberry32): the same seed, the same faults for the same requests. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FaultProxyOptions {
  /** Requests subject to ambiguous faults (default: POST /messages). */
  faulted?: FaultTarget;
  /** How answers are lost, picked at random among these (default: reset and 502, as before). */
  modes?: readonly FaultMode[];
  /** How long a `hang` holds the answer before resetting the socket (default 10 s). */
  hangMs?: number;
}

export interface FaultProxy {
  url: string;
  /** Every request fails (reset or 503) until `until` (ms since the epoch). */
  outageUntil(until: number): void;
  /** This share (0..1) of the faulted requests is handled by the platform and then answered with a fault. */
  ambiguousShare(share: number): void;
  /** `ambiguous` counts lost answers; `lostBy` the same by `METHOD path` (upload slots folded into one). */
  stats: { forwarded: number; outage: number; ambiguous: number; lostBy: Record<string, number> };
  close(): Promise<void>;
}

export async function startFaultProxy(
  target: string,
  random: () => number,
  options: FaultProxyOptions = {},
): Promise<FaultProxy> {
  const faulted = options.faulted ?? SENDS;
  const modes = options.modes ?? ['reset', '502'];
  const hangMs = options.hangMs ?? 10_000;
  const targetOrigin = new URL(target).origin;
  let self = '';
  let outage = 0;
  let share = 0;
  const stats = { forwarded: 0, outage: 0, ambiguous: 0, lostBy: {} as Record<string, number> };
  const hanging = new Set<NodeJS.Timeout>();
  const read = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
    });
  const pick = (): FaultMode =>
    modes.length === 2 && modes[0] === 'reset' && modes[1] === '502'
      ? random() < 0.5
        ? 'reset'
        : '502' // the draws of the original proxy: seeded runs of older tests repeat
      : (modes[Math.min(modes.length - 1, Math.floor(random() * modes.length))] as FaultMode);
  const lose = (req: IncomingMessage, res: ServerResponse, mode: FaultMode) => {
    if (mode === 'reset') req.socket.destroy();
    else if (mode === 'hang') {
      const timer = setTimeout(() => {
        hanging.delete(timer);
        req.socket.destroy();
      }, hangMs);
      hanging.add(timer);
    } else {
      const status = Number(mode);
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(status === 502 ? '{"code":"bad.gateway"}' : '{"code":"internal.error"}');
    }
  };
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
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0]!;
    let answer: Awaited<ReturnType<typeof request>>;
    try {
      answer = await request(`${target}${req.url}`, {
        method: method as 'GET',
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
    } catch {
      req.socket.destroy(); // the sandbox went away (closing)
      return;
    }
    let text = Buffer.from(await answer.body.arrayBuffer());
    stats.forwarded++;
    if (faulted(method, path) && random() < share) {
      stats.ambiguous++; // the platform acted; its answer never arrives
      const key = `${method} ${path.startsWith('/_upload/') ? '/_upload/…' : path}`;
      stats.lostBy[key] = (stats.lostBy[key] ?? 0) + 1;
      lose(req, res, pick());
      return;
    }
    if (method === 'POST' && path === '/uploads' && answer.statusCode === 200) {
      // The upload host is the platform's too: route it through the proxy.
      const slot = JSON.parse(text.toString()) as { url?: string };
      if (slot.url?.startsWith(targetOrigin)) slot.url = self + slot.url.slice(targetOrigin.length);
      text = Buffer.from(JSON.stringify(slot));
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(answer.headers)) if (typeof v === 'string') out[k] = v;
    delete out['content-length'];
    delete out['transfer-encoding'];
    res.writeHead(answer.statusCode, out).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  self = `http://127.0.0.1:${port}`;
  return {
    url: self,
    outageUntil: (until) => {
      outage = until;
    },
    ambiguousShare: (s) => {
      share = s;
    },
    stats,
    close: () =>
      new Promise((resolve) => {
        for (const timer of hanging) clearTimeout(timer);
        hanging.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
