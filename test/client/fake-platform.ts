/**
 * A minimal stand-in for the platform on 127.0.0.1 (port 0): records every request exactly as it
 * arrived (method, path, query, headers, body) and answers with what the test scripts.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** The raw query string without `?` ('' when none). */
  rawQuery: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  /** Raw body text ('' when none). */
  rawBody: string;
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON unless it is a string. */
  body?: unknown;
}

export type Responder = (req: RecordedRequest, res: http.ServerResponse) => Reply | 'handled';

export interface FakePlatform {
  url: string;
  requests: RecordedRequest[];
  /** Replaces how the next requests are answered. */
  respond(responder: Responder | Reply): void;
  close(): Promise<void>;
}

export const PAYLOADS = new URL('./fixtures/payloads/', import.meta.url);

/** Reads a recorded payload, e.g. `payload('chats/get-chat-by-id.json')`. */
export function payload(name: string): unknown {
  return JSON.parse(readFileSync(new URL(name, PAYLOADS), 'utf8'));
}

export async function startFakePlatform(
  initial: Responder | Reply = { body: { success: true } },
): Promise<FakePlatform> {
  let responder: Responder = typeof initial === 'function' ? initial : () => initial;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: url.pathname,
        rawQuery: url.search.replace(/^\?/, ''),
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        rawBody,
        body: rawBody ? JSON.parse(rawBody) : undefined,
      };
      requests.push(recorded);
      const reply = responder(recorded, res);
      if (reply === 'handled') return;
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(text);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond(next) {
      responder = typeof next === 'function' ? next : () => next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
