/**
 * Three `botflow run` processes on one PostgreSQL database behind a round-robin load balancer, under load
 * from people chatting in the sandbox (the platform's limits on), while one process at a time is SIGKILLed
 * and started again, ten times; then a rolling restart of all three (SIGTERM, one by one). Afterwards every
 * person has had every message answered exactly once, in order; the platform never saw more than 30
 * requests in a second or 2 in a second to one chat (and never answered 429); the time another process took
 * to own a killed process's partitions is measured and reported.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { crashSeed } from '../crash-load.ts';
import { eventually } from '../support/eventually.ts';
import { untilIdle } from '../support/idle.ts';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';
import { type BotflowProcess, runBotflow } from './child.ts';

const FLOW = `flow: echo
start: listen
triggers: [{ bot_started: true }]
steps:
  listen:
    type: input
    say: Say something.
    input: text
    retries: { max: 3, exhausted: { goto: listen } }
    save: heard
    next: echo
  echo:
    type: message
    say: "got {{heard}}"
    next: listen
`;

const PEOPLE = 12;
const KILLS = 10;

const up = await postgresAvailable();
const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** A free port on 127.0.0.1 (listen on 0, close). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Round robin over `ports`; a backend that refuses is skipped, all refusing gives 502 (the platform retries). */
function loadBalancer(ports: number[]): Promise<Server> {
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

describe.skipIf(!up)('three processes on one PostgreSQL database', () => {
  it('lose and repeat nothing through ten SIGKILLs and a rolling restart, within the platform limits', async () => {
    const { random } = crashSeed('cluster-crash');
    const db = await freshDatabase();
    cleanup.push(() => db.drop());
    const dir = mkdtempSync(join(tmpdir(), 'botflow-cluster-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'flows'));
    writeFileSync(join(dir, 'flows', 'echo.flow.yaml'), FLOW);
    const sandbox: Sandbox = await startSandbox();
    cleanup.push(() => sandbox.close());
    const ports = [await freePort(), await freePort(), await freePort()];
    const lb = await loadBalancer(ports);
    cleanup.push(() => new Promise((resolve) => lb.close(resolve)));
    const lbUrl = `http://127.0.0.1:${(lb.address() as AddressInfo).port}/hook`;
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    cleanup.push(() => admin.end());

    const processes: BotflowProcess[] = [];
    const start = (i: number) => {
      const bot = runBotflow(['run'], {
        cwd: dir,
        env: {
          BOTFLOW_TOKEN: sandbox.token,
          BOTFLOW_BASE_URL: sandbox.baseUrl,
          BOTFLOW_DATABASE_URL: db.url,
          BOTFLOW_MODE: 'webhook',
          BOTFLOW_WEBHOOK_URL: lbUrl,
          BOTFLOW_WEBHOOK_HOST: '127.0.0.1',
          BOTFLOW_WEBHOOK_PORT: String(ports[i]),
          BOTFLOW_WEBHOOK_SECRET: 'cluster_secret_1',
          BOTFLOW_FLOWS_DIR: join(dir, 'flows'),
          BOTFLOW_LOG_LEVEL: 'warn',
        },
      });
      processes[i] = bot;
      return bot;
    };
    cleanup.push(async () => {
      for (const bot of processes) bot?.child.kill('SIGKILL');
      await Promise.all(processes.map((bot) => bot?.exited));
    });
    for (const i of [0, 1, 2]) start(i);
    for (const bot of processes) await bot.waitFor(/botflow is running as/, 60_000);

    const people = await Promise.all(
      Array.from({ length: PEOPLE }, (_, i) => sandbox.control.createUser({ first_name: `P${i}` })),
    );
    const botTexts = async (userId: number) =>
      (await sandbox.control.view(userId)).messages.filter((m) => m.from === 'bot').map((m) => m.text);
    await Promise.all(people.map((p) => sandbox.control.startBot(p.user_id)));

    // Load until the faults are over: each person sends message after message, a second or two apart.
    let loading = true;
    const sent = new Map<number, number>();
    const load = Promise.all(
      people.map(async (p) => {
        for (let m = 1; loading; m++) {
          await new Promise((resolve) => setTimeout(resolve, 1000 + random() * 2000));
          await sandbox.control.sendMessage(p.user_id, 'dialog', { text: `m${m}` });
          sent.set(p.user_id, m);
        }
      }),
    );

    // Faults: SIGKILL a random process, start it again, measure how long its partitions stayed orphaned.
    const takeovers: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      await new Promise((resolve) => setTimeout(resolve, 800 + random() * 1500));
      const i = Math.floor(random() * 3);
      const victim = processes[i]!;
      const { rows } = await admin.query<{ id: string }>(
        "SELECT id FROM members WHERE info::json->>'pid' = $1",
        [String(victim.child.pid)],
      );
      victim.child.kill('SIGKILL');
      const killedAt = Date.now();
      await victim.exited;
      start(i);
      const member = rows[0]?.id;
      if (member) {
        await eventually(
          'the killed process’s partitions to be taken over',
          async () => {
            const held = await admin.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM leases WHERE owner = $1 AND name LIKE 'partition:%'",
              [member],
            );
            return held.rows[0]!.n === 0;
          },
          30_000,
        );
        takeovers.push(Date.now() - killedAt);
      }
      await processes[i]!.waitFor(/botflow is running as/, 60_000);
    }

    // A rolling restart of all three, still under load.
    for (const i of [0, 1, 2]) {
      processes[i]!.child.kill('SIGTERM');
      expect(await processes[i]!.exited).toBe(0);
      start(i);
      await processes[i]!.waitFor(/botflow is running as/, 60_000);
    }

    loading = false;
    await load;
    const expected = (userId: number) => {
      const texts = ['Say something.'];
      for (let m = 1; m <= (sent.get(userId) ?? 0); m++) texts.push(`got m${m}`, 'Say something.');
      return texts;
    };
    await eventually(
      'every person to have every answer',
      async () => {
        for (const p of people) {
          if ((await botTexts(p.user_id)).length < expected(p.user_id).length) return false;
        }
        return true;
      },
      Number(process.env.BOTFLOW_CLUSTER_WAIT_MS ?? 180_000),
    ).catch(async (error: unknown) => {
      // Say what is missing and where it stands in the database, then fail.
      for (const p of people) {
        const got = await botTexts(p.user_id);
        const want = expected(p.user_id);
        const from = want.findIndex((t, i) => got[i] !== t);
        if (from >= 0)
          console.error(
            `person ${p.user_id}: from message ${from}, expected ${JSON.stringify(want.slice(from, from + 4))}, ` +
              `saw ${JSON.stringify(got.slice(from, from + 4))}`,
          );
        const missing = want.filter((t) => t.startsWith('got') && !got.includes(t));
        if (missing.length > 0) {
          const stored = await admin.query(
            'SELECT id, status, dedupe_key, payload FROM inbox WHERE payload LIKE $1 AND payload LIKE $2',
            [`%${p.user_id}%`, `%"${missing[0]!.slice(4)}"%`],
          );
          console.error(`person ${p.user_id}: missing ${missing}; stored: ${JSON.stringify(stored.rows)}`);
        }
      }
      const state = await admin.query(
        "SELECT 'inbox' AS t, status, count(*)::int AS n FROM inbox GROUP BY status UNION ALL " +
          "SELECT 'outbox', status, count(*)::int FROM outbox GROUP BY status UNION ALL " +
          "SELECT 'lease:' || coalesce(owner, '-'), name, epoch::int FROM leases WHERE name = 'dispatcher'",
      );
      console.error(JSON.stringify(state.rows));
      const failed = await admin.query("SELECT kind, error FROM inbox WHERE status = 'failed' LIMIT 5");
      console.error(JSON.stringify(failed.rows));
      throw error;
    });
    await untilIdle(async (sql) => (await admin.query(sql)).rows[0]); // no repeat is on its way
    for (const p of people) expect(await botTexts(p.user_id)).toEqual(expected(p.user_id));
    const messages = [...sent.values()].reduce((a, b) => a + b, 0);

    // The platform's view: never more than the limits, never a 429.
    const requests = await sandbox.control.requests();
    const admitted = requests.filter((r) => r.status !== 429);
    expect(requests.filter((r) => r.status === 429)).toEqual([]);
    const maxInWindow = (times: number[]) => {
      let max = 0;
      for (let a = 0, b = 0; b < times.length; b++) {
        while (times[b]! - times[a]! >= 1000) a++;
        max = Math.max(max, b - a + 1);
      }
      return max;
    };
    const overall = maxInWindow(admitted.map((r) => r.time).sort((x, y) => x - y));
    const perChat = new Map<number, number[]>();
    for (const r of admitted)
      if (r.chat !== undefined) perChat.set(r.chat, [...(perChat.get(r.chat) ?? []), r.time]);
    const busiestChat = Math.max(...[...perChat.values()].map((t) => maxInWindow(t.sort((x, y) => x - y))));
    console.info(
      `cluster-crash: ${messages} messages from ${PEOPLE} people, ${KILLS} kills, takeover ms ${JSON.stringify(takeovers)} (max ${Math.max(...takeovers)}), ` +
        `busiest second ${overall} requests, busiest chat second ${busiestChat}`,
    );
    expect(overall).toBeLessThanOrEqual(30);
    expect(busiestChat).toBeLessThanOrEqual(2);
    expect(Math.max(...takeovers)).toBeLessThanOrEqual(5_000);
  }, 600_000);
});
