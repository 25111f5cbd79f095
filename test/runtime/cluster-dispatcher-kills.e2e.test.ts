/**
 * Three `botflow run` processes on one PostgreSQL database, by long polling and by webhook (the sandbox
 * delivering through a round-robin balancer, as docs/scaling.md describes), the sandbox with the platform's
 * real limits. 24 people write about 12 messages a second in all while the process holding the dispatcher
 * role (it sends for all, and polls in polling mode) is SIGKILLed five times, 8 to 12 s apart, then all
 * three are restarted one by one. Every message is answered once, in order, no request is refused with 429,
 * and the reply latency (the person's message to the bot's answer, on the platform's clock) stays under
 * 15 s at p99. The figures are printed (and written in docs/scaling.md).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { crashSeed } from '../crash-load.ts';
import {
  dispatcherPid,
  freePort,
  type Intake,
  loadBalancer,
  platformFigures,
  startMember,
} from '../support/cluster-processes.ts';
import { eventually } from '../support/eventually.ts';
import { untilIdle } from '../support/idle.ts';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';
import type { BotflowProcess } from './child.ts';

// One answer per message: 12 messages a second make 12 sends a second, leaving the dispatcher room to
// catch up after each failover.
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
    next: again
  again:
    type: input
    input: text
    retries: { max: 3, exhausted: { goto: again } }
    save: heard
    next: echo
`;

const PEOPLE = 24;
const KILLS = 5;

const up = await postgresAvailable();
const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

const percentile = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0;

describe.skipIf(!up)('three processes, the dispatcher SIGKILLed again and again', () => {
  it.each(['polling', 'webhook'] as const)(
    'by %s: nothing lost, repeated or out of order, no 429, reply p99 under 15 s',
    async (mode) => {
      const { random } = crashSeed(`cluster-dispatcher-kills ${mode}`);
      const db = await freshDatabase();
      cleanup.push(() => db.drop());
      const dir = mkdtempSync(join(tmpdir(), 'botflow-dispatcher-kills-'));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      mkdirSync(join(dir, 'flows'));
      writeFileSync(join(dir, 'flows', 'echo.flow.yaml'), FLOW);
      const sandbox: Sandbox = await startSandbox();
      cleanup.push(() => sandbox.close());
      let intake: Intake = { mode: 'polling' };
      if (mode === 'webhook') {
        const ports = [await freePort(), await freePort(), await freePort()];
        const lb = await loadBalancer(ports);
        cleanup.push(() => new Promise((resolve) => lb.close(resolve)));
        intake = { mode, ports, lbUrl: `http://127.0.0.1:${(lb.address() as AddressInfo).port}/hook` };
      }
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      cleanup.push(() => admin.end());

      const processes: BotflowProcess[] = [];
      const start = (i: number) => {
        processes[i] = startMember(i, { dir, sandbox, databaseUrl: db.url, intake });
        return processes[i];
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
      await Promise.all(people.map((p) => sandbox.control.startBot(p.user_id)));
      await eventually(
        'everyone to be greeted',
        async () => {
          for (const p of people) {
            const view = await sandbox.control.view(p.user_id);
            if (!view.messages.some((m) => m.from === 'bot')) return false;
          }
          return true;
        },
        60_000,
      );

      // ~12 messages a second: each person writes every 1.5 to 2.5 s until the faults are over.
      let loading = true;
      const sent = new Map<number, number>();
      const began = Date.now();
      const load = Promise.all(
        people.map(async (p) => {
          await new Promise((resolve) => setTimeout(resolve, random() * 2000));
          for (let m = 1; loading; m++) {
            await sandbox.control.sendMessage(p.user_id, 'dialog', { text: `m${m}` });
            sent.set(p.user_id, m);
            await new Promise((resolve) => setTimeout(resolve, 1500 + random() * 1000));
          }
        }),
      );

      // SIGKILL whichever process is the dispatcher, start it again, wait for the role to settle.
      const victims: number[] = [];
      for (let k = 0; k < KILLS; k++) {
        await new Promise((resolve) => setTimeout(resolve, 8000 + random() * 4000));
        let pid: number | undefined;
        await eventually(
          'a dispatcher',
          async () => {
            pid = await dispatcherPid(admin);
            return pid !== undefined;
          },
          30_000,
        );
        const i = processes.findIndex((bot) => bot.child.pid === pid);
        expect(i).toBeGreaterThanOrEqual(0);
        processes[i]!.child.kill('SIGKILL');
        await processes[i]!.exited;
        victims.push(i);
        start(i);
        await processes[i]!.waitFor(/botflow is running as/, 60_000);
      }
      // A rolling restart, still under load.
      for (const i of [0, 1, 2]) {
        processes[i]!.child.kill('SIGTERM');
        expect(await processes[i]!.exited).toBe(0);
        start(i);
        await processes[i]!.waitFor(/botflow is running as/, 60_000);
      }
      // The load goes on until the restarted processes have answered under it (36 replies: ~3 s of load).
      const restarted = Date.now();
      const replies = () =>
        sandbox.requestLog.list(restarted).filter((r) => r.op === 'sendMessage' && r.status === 200).length;
      await eventually('36 replies after the rolling restart', () => replies() >= 36, 60_000);
      loading = false;
      await load;
      const seconds = (Date.now() - began) / 1000;
      const messages = [...sent.values()].reduce((a, b) => a + b, 0);

      const answered = async () => {
        for (const p of people) {
          const view = await sandbox.control.view(p.user_id);
          const got = view.messages.filter((m) => m.from === 'bot' && m.text?.startsWith('got m'));
          if (got.length < (sent.get(p.user_id) ?? 0)) return false;
        }
        return true;
      };
      await eventually('every message to be answered', answered, 120_000).catch(() => {});
      // Inbox handled, outbox settled: no repeat is on its way.
      await untilIdle(async (sql) => (await admin.query(sql)).rows[0]).catch(() => {}); // the asserts below explain

      // Per person: every mN answered by "got mN", once, in the order written; latency on the platform's clock.
      // Where a person's answers went wrong: the answers seen, and the person's inbox and outbox rows.
      let shown = 0;
      const explain = async (userId: number, order: number[], missing: number[]) => {
        const inbox = await admin.query<{ id: string; status: string; text: string | null }>(
          "SELECT id, status, payload::json->'message'->'body'->>'text' AS text FROM inbox " +
            'WHERE conversation_key LIKE $1 ORDER BY id',
          [`%${userId}%`],
        );
        const outbox = await admin.query<{ id: string; status: string; attempts: number; text: string }>(
          "SELECT id, status, attempts, args::json->>'text' AS text FROM outbox WHERE conversation_key LIKE $1 ORDER BY id",
          [`%${userId}%`],
        );
        console.error(
          `person ${userId}: answers ${JSON.stringify(order)} missing ${JSON.stringify(missing)}\n` +
            `  inbox ${JSON.stringify(inbox.rows.map((r) => `${r.id}:${r.text}:${r.status}`))}\n` +
            `  outbox ${JSON.stringify(outbox.rows.map((r) => `${r.id}:${r.text}:${r.status}:${r.attempts}`))}`,
        );
      };
      let lost = 0;
      let duplicated = 0;
      let outOfOrder = 0;
      const latencies: number[] = [];
      for (const p of people) {
        const view = await sandbox.control.view(p.user_id);
        const written = new Map<string, number>();
        for (const m of view.messages) if (m.from === 'me' && m.text) written.set(m.text, m.timestamp);
        const answers = view.messages.filter((m) => m.from === 'bot' && m.text?.startsWith('got m'));
        const seen = new Set<string>();
        let last = 0;
        for (const a of answers) {
          const text = a.text!.slice(4);
          const n = Number(text.slice(1));
          if (seen.has(text)) duplicated++;
          else if (n < last) outOfOrder++;
          seen.add(text);
          last = Math.max(last, n);
          const at = written.get(text);
          if (at !== undefined) latencies.push(a.timestamp - at);
        }
        const missing: number[] = [];
        for (let m = 1; m <= (sent.get(p.user_id) ?? 0); m++) if (!seen.has(`m${m}`)) missing.push(m);
        lost += missing.length;
        const order = answers.map((a) => Number(a.text!.slice(5)));
        if ((missing.length > 0 || order.some((n, i) => i > 0 && n < order[i - 1]!)) && shown++ < 2)
          await explain(p.user_id, order, missing);
      }
      latencies.sort((a, b) => a - b);
      const figures = await platformFigures(sandbox);
      const summary = {
        mode,
        messages,
        perSecond: Number((messages / seconds).toFixed(1)),
        seconds: Math.round(seconds),
        dispatcherKills: victims.length,
        lost,
        duplicated,
        outOfOrder,
        http429: figures.http429.length,
        busiestSecond: figures.busiestSecond,
        busiestChatSecond: figures.busiestChatSecond,
        replyP50Ms: percentile(latencies, 0.5),
        replyP99Ms: percentile(latencies, 0.99),
        replyMaxMs: latencies.at(-1) ?? 0,
      };
      console.info(`cluster-dispatcher-kills: ${JSON.stringify(summary)}`);
      expect({ lost, duplicated, outOfOrder, http429: figures.http429.length }).toEqual({
        lost: 0,
        duplicated: 0,
        outOfOrder: 0,
        http429: 0,
      });
      expect(figures.busiestSecond).toBeLessThanOrEqual(30);
      expect(summary.replyP99Ms).toBeLessThan(15_000);
    },
    600_000,
  );
});
