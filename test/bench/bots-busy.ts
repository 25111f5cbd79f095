/**
 * Part B of the bots benchmark (bots.bench.ts): `n` busy bots (default 10) against one sandbox with its real
 * limits (30 requests/s per bot, 2/s per chat), served by TWO deployment processes (bots-child.ts, polling)
 * on PostgreSQL, a schema per bot, both processes serving every bot (the bot's budget shared through the
 * database). Each bot answers a flood: 20 people each writing every 600 ms (33 messages/s, each answered
 * by one message), more than its 30/s. Measured after a 5 s warm-up: each bot's sends/s (the slowest is
 * `busy_min_rps`), the 429s in the sandbox's request logs, the slowest over the fastest bot, and both
 * processes' CPU per send.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../src/sandbox/index.ts';
import { chatFlows, checkConnections, dropSchemas, PG_URL, sleep, startChild } from './bots-process.ts';

const PEOPLE_PER_BOT = 20;
const EVERY_MS = 600;
const WARMUP_MS = 5_000;

export async function busyPart(n: number, seconds: number) {
  console.log(
    `B: ${n} busy bots, two processes on PostgreSQL, ${PEOPLE_PER_BOT} people per bot every ${EVERY_MS} ms…`,
  );
  await checkConnections(n, 2);
  const dir = mkdtempSync(join(tmpdir(), 'botflow-bench-busy-'));
  const names = Array.from({ length: n }, (_, i) => `bbb${process.pid % 100_000}_${i}`);
  const sandbox = await startSandbox({ bots: names.map((name) => ({ name })) });
  const hosted = sandbox.bots();
  const tokens = hosted.map((b) => sandbox.tokenOf(b.id));
  const spec = {
    dir,
    store: 'postgres' as const,
    databaseUrl: PG_URL,
    baseUrl: sandbox.baseUrl,
    mode: 'polling' as const,
    port: 0,
    names,
    flows: chatFlows(dir),
    catalog: join(dir, 'catalog.db'),
    settleMs: 1_000,
  };
  const children = [startChild(spec, tokens, 'p1')];
  try {
    await children[0]!.next('ready', 300_000);
    children.push(startChild(spec, tokens, 'p2'));
    const ready = await children[1]!.next('ready', 300_000);
    console.log(
      `  both processes ready (${JSON.stringify(ready.statuses)} ${JSON.stringify(ready.reasons)})`,
    );
    const people: { bot: number; user: number }[] = [];
    for (const bot of hosted)
      for (let i = 0; i < PEOPLE_PER_BOT; i++) {
        const user = await sandbox.control.createUser({ first_name: `F${bot.id}_${i}` });
        await sandbox.control.forBot(bot.id).startBot(user.user_id);
        people.push({ bot: bot.id, user: user.user_id });
      }
    await sleep(2_000);
    const since = Date.now();
    const warm = since + WARMUP_MS;
    const end = since + seconds * 1000;
    const before = await Promise.all(children.map((c) => c.stats()));
    let written = 0;
    await Promise.all(
      people.map(async (p, i) => {
        await sleep((i * EVERY_MS) / people.length);
        const control = sandbox.control.forBot(p.bot);
        for (let k = 0; Date.now() < end; k++) {
          const at = Date.now();
          await control.sendText(p.user, 'dialog', `flood ${k}`).then(
            () => written++,
            () => {},
          );
          await sleep(Math.max(0, EVERY_MS - (Date.now() - at)));
        }
      }),
    );
    const measuredEnd = Math.min(Date.now(), end);
    const after = await Promise.all(children.map((c) => c.stats()));
    const windowS = (measuredEnd - warm) / 1000;
    let http429 = 0;
    let sendsAll = 0;
    const rates = hosted.map((b) => {
      const log = sandbox.app.sandbox.bots.byId(b.id)!.log.list(since);
      http429 += log.filter((r) => r.status === 429).length;
      const sends = log.filter(
        (r) => r.op === 'sendMessage' && r.status === 200 && r.time >= warm && r.time < measuredEnd,
      ).length;
      sendsAll += log.filter((r) => r.op === 'sendMessage' && r.status === 200).length;
      return sends / windowS;
    });
    const cpu = after.reduce((a, s, i) => a + s.cpu_us - before[i]!.cpu_us, 0);
    const r = (x: number, d = 100) => Math.round(x * d) / d;
    const min = Math.min(...rates);
    const max = Math.max(...rates);
    const figures = {
      busy_bots: n,
      busy_window_s: r(windowS, 10),
      busy_min_rps: r(min),
      busy_max_rps: r(max),
      busy_rps: rates.map((x) => r(x, 10)),
      busy_share_ratio: r(max > 0 ? min / max : 0),
      http_429: http429,
      busy_sends: sendsAll,
      // What the people managed to write, per bot and second (the flood asked for 33).
      busy_written_per_bot_s: r(written / n / ((measuredEnd - since) / 1000), 10),
      cpu_us_per_send: Math.round(cpu / Math.max(1, sendsAll)),
    };
    console.log(
      `B: ${n} bots over ${figures.busy_window_s} s: slowest ${figures.busy_min_rps}/s, fastest ${figures.busy_max_rps}/s ` +
        `(goal every bot ≥ 29/s, ratio ${figures.busy_share_ratio} ≥ 0.9); 429s: ${http429}; ` +
        `CPU per send ${figures.cpu_us_per_send} µs (both processes)`,
    );
    return figures;
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await sandbox.close();
    await dropSchemas(names);
    rmSync(dir, { recursive: true, force: true });
  }
}
