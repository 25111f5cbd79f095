/**
 * Parts of the multi-process e2e tests: `botflow run` processes on one PostgreSQL database (by polling, or
 * by webhook behind a round-robin balancer as docs/scaling.md describes), the role of each process read from
 * the database, and the platform's view of the run (429s, the busiest second).
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type pg from 'pg';
import type { Sandbox } from '../../src/sandbox/index.ts';
import { type BotflowProcess, runBotflow } from '../runtime/child.ts';

/** A free port on 127.0.0.1 (listen on 0, close). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Round robin over `ports`; a backend that refuses is skipped, all refusing gives 502 (the platform retries). */
export function loadBalancer(ports: number[]): Promise<Server> {
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const attempt = (tries: number) => {
        if (tries >= ports.length) {
          res.writeHead(502).end();
          return;
        }
        const port = ports[next++ % ports.length]!;
        const forward = request(
          { host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        forward.on('error', () => {
          if (!res.headersSent) attempt(tries + 1);
        });
        forward.end(body);
      };
      attempt(0);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** How the processes take updates: long polling, or webhook deliveries through `lbUrl` to `ports[i]`. */
export type Intake = { mode: 'polling' } | { mode: 'webhook'; lbUrl: string; ports: number[] };

/** Starts process `i` of a cluster in `dir` (flows in dir/flows). */
export function startMember(
  i: number,
  o: { dir: string; sandbox: Sandbox; databaseUrl: string; intake: Intake; logLevel?: string },
): BotflowProcess {
  const intake: Record<string, string> =
    o.intake.mode === 'polling'
      ? { BOTFLOW_MODE: 'polling', BOTFLOW_POLLING_TIMEOUT_SECONDS: '5' }
      : {
          BOTFLOW_MODE: 'webhook',
          BOTFLOW_WEBHOOK_URL: o.intake.lbUrl,
          BOTFLOW_WEBHOOK_HOST: '127.0.0.1',
          BOTFLOW_WEBHOOK_PORT: String(o.intake.ports[i]),
          BOTFLOW_WEBHOOK_SECRET: 'cluster_secret_1',
        };
  return runBotflow(['run'], {
    cwd: o.dir,
    env: {
      BOTFLOW_TOKEN: o.sandbox.token,
      BOTFLOW_BASE_URL: o.sandbox.baseUrl,
      BOTFLOW_DATABASE_URL: o.databaseUrl,
      BOTFLOW_FLOWS_DIR: join(o.dir, 'flows'),
      BOTFLOW_LOG_LEVEL: o.logLevel ?? 'warn',
      ...intake,
    },
  });
}

/** The pid of the process holding the dispatcher lease now (undefined while nobody holds it). */
export async function dispatcherPid(admin: pg.Client): Promise<number | undefined> {
  const { rows } = await admin.query<{ pid: string | null }>(
    "SELECT m.info::json->>'pid' AS pid FROM leases l JOIN members m ON m.id = l.owner " +
      "WHERE l.name = 'dispatcher' AND l.expires_at > botflow_now_ms()",
  );
  return rows[0]?.pid ? Number(rows[0].pid) : undefined;
}

/** The most requests in any one-second window of these times (ms). */
export function maxInWindow(times: number[]): number {
  const sorted = [...times].sort((x, y) => x - y);
  let max = 0;
  for (let a = 0, b = 0; b < sorted.length; b++) {
    while (sorted[b]! - sorted[a]! >= 1000) a++;
    max = Math.max(max, b - a + 1);
  }
  return max;
}

/** The platform's view: requests refused with 429, the busiest second overall and of one chat, calls by op. */
export async function platformFigures(sandbox: Sandbox) {
  const requests = await sandbox.control.requests();
  const admitted = requests.filter((r) => r.status !== 429);
  const perChat = new Map<number, number[]>();
  for (const r of admitted)
    if (r.chat !== undefined) perChat.set(r.chat, [...(perChat.get(r.chat) ?? []), r.time]);
  const byOp: Record<string, number> = {};
  for (const r of requests) byOp[r.op ?? r.path] = (byOp[r.op ?? r.path] ?? 0) + 1;
  return {
    http429: requests.filter((r) => r.status === 429),
    busiestSecond: maxInWindow(admitted.map((r) => r.time)),
    busiestChatSecond: Math.max(0, ...[...perChat.values()].map(maxInWindow)),
    byOp,
  };
}
