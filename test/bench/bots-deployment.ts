/**
 * Part A of the bots benchmark (bots.bench.ts): one deployment process (bots-child.ts) serving N bots in
 * webhook mode (one server, routed by alias) against ONE sandbox in this process hosting all N, real
 * limits. Then the same with one bot, for the baselines. Per run: start-up to /readyz 200, RSS after
 * settling, then chatters writing one message per 10 s each for `chatSeconds` (N bots × 1 chatter; the
 * 1-bot run has min(N, 200) chatters, the same rate per chatter, within one bot's 30/s), replies timed
 * from the person's message (control API) to the bot's sendMessage in the sandbox's request log, and the
 * process's CPU over the chat window per update.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../src/sandbox/index.ts';
import { freePort } from '../support/bots.ts';
import { chatFlows, checkConnections, dropSchemas, PG_URL, pct, sleep, startChild } from './bots-process.ts';

export interface DeploymentPartOptions {
  bots: number;
  store: 'sqlite' | 'postgres';
  chatSeconds: number;
  startTimeoutS: number;
}

const EVERY_MS = 10_000;

interface RunFigures {
  startup_s: number;
  rss: number;
  statuses: Record<string, number>;
  replies: number[];
  unanswered: number;
  updates: number;
  cpu_us: number;
}

/** One deployment of `n` bots; `chatters` people, spread over the bots round-robin. */
async function run(n: number, chatters: number, o: DeploymentPartOptions, tag: string): Promise<RunFigures> {
  const dir = mkdtempSync(join(tmpdir(), `botflow-bench-bots-${tag}-`));
  const prefix = `bb${process.pid % 100_000}${tag}`;
  const names = Array.from({ length: n }, (_, i) => `${prefix}_${i}`);
  const sandbox = await startSandbox({ bots: names.map((name) => ({ name })) });
  const hosted = sandbox.bots();
  const tokens = hosted.map((b) => sandbox.tokenOf(b.id));
  const child = startChild(
    {
      dir,
      store: o.store,
      databaseUrl: PG_URL,
      baseUrl: sandbox.baseUrl,
      mode: 'webhook',
      port: await freePort(),
      names,
      flows: chatFlows(dir),
      catalog: join(dir, 'catalog.db'),
      settleMs: 5_000,
    },
    tokens,
    tag,
  );
  try {
    const ready = await child.next('ready', o.startTimeoutS * 1000);
    console.log(
      `  ${tag}: ${n} bot(s) ready in ${(ready.startup_s as number).toFixed(1)} s (${JSON.stringify(ready.statuses)} ${JSON.stringify(ready.reasons)}), ` +
        `RSS ${Math.round((ready.rss as number) / 2 ** 20)} MB after settling`,
    );
    // The chatters: a person each, their dialog with their bot.
    const people: { bot: number; user: number; chat: number }[] = [];
    for (let i = 0; i < chatters; i++) {
      const bot = hosted[i % n]!;
      const user = await sandbox.control.createUser({ first_name: `C${i}` });
      const { chat_id } = await sandbox.control.forBot(bot.id).startBot(user.user_id);
      people.push({ bot: bot.id, user: user.user_id, chat: chat_id });
    }
    await sleep(2_000); // the bot_started updates (no flow starts on them)
    const before = await child.stats();
    const since = Date.now();
    const sent = new Map<number, number[]>();
    const end = since + o.chatSeconds * 1000;
    await Promise.all(
      people.map(async (p, i) => {
        await sleep((i * EVERY_MS) / people.length);
        const control = sandbox.control.forBot(p.bot);
        for (let k = 0; Date.now() < end; k++) {
          const times = sent.get(p.chat) ?? [];
          times.push(Date.now());
          sent.set(p.chat, times);
          await control.sendText(p.user, 'dialog', `hello ${k}`).catch(() => {});
          await sleep(EVERY_MS);
        }
      }),
    );
    // The last answers: until every message has its reply, or 15 s.
    const answersOf = () => {
      const byChat = new Map<number, number[]>();
      for (const b of hosted) {
        const log = sandbox.app.sandbox.bots.byId(b.id)!.log;
        for (const r of log.list(since))
          if (r.op === 'sendMessage' && r.status === 200 && r.chat !== undefined && sent.has(r.chat))
            byChat.set(r.chat, [...(byChat.get(r.chat) ?? []), r.time]);
      }
      return byChat;
    };
    const updates = [...sent.values()].reduce((a, t) => a + t.length, 0);
    const waitUntil = Date.now() + 15_000;
    let byChat = answersOf();
    while ([...byChat.values()].reduce((a, t) => a + t.length, 0) < updates && Date.now() < waitUntil) {
      await sleep(500);
      byChat = answersOf();
    }
    const after = await child.stats();
    const replies: number[] = [];
    let unanswered = 0;
    for (const [chat, times] of sent) {
      const answered = byChat.get(chat) ?? [];
      times.forEach((t, i) => {
        if (answered[i] === undefined) unanswered++;
        else replies.push(answered[i]! - t);
      });
    }
    return {
      startup_s: ready.startup_s as number,
      rss: ready.rss as number,
      statuses: ready.statuses as Record<string, number>,
      replies,
      unanswered,
      updates,
      cpu_us: after.cpu_us - before.cpu_us,
    };
  } finally {
    await child.stop();
    await sandbox.close();
    if (o.store === 'postgres') await dropSchemas(names);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function deploymentPart(o: DeploymentPartOptions) {
  const r = (x: number, d = 10) => Math.round(x * d) / d;
  console.log(`A: a deployment of ${o.bots} bots on ${o.store}, then one bot…`);
  if (o.store === 'postgres') await checkConnections(o.bots, 1);
  const many = await run(o.bots, o.bots, o, 'n');
  const one = await run(1, Math.min(o.bots, 200), o, 'one');
  const cpuMany = many.cpu_us / Math.max(1, many.updates);
  const cpuOne = one.cpu_us / Math.max(1, one.updates);
  const figures = {
    bots: o.bots,
    store: o.store,
    chat_s: o.chatSeconds,
    startup_s: r(many.startup_s),
    startup_s_one: r(one.startup_s, 100),
    statuses: many.statuses,
    rss_mb: r(many.rss / 2 ** 20),
    rss_mb_one: r(one.rss / 2 ** 20),
    rss_per_idle_bot_kb: o.bots > 1 ? Math.round((many.rss - one.rss) / 1024 / (o.bots - 1)) : null,
    updates: many.updates,
    replies: many.replies.length,
    unanswered: many.unanswered,
    reply_p50_ms: Math.round(pct(many.replies, 0.5)),
    reply_p95_ms: Math.round(pct(many.replies, 0.95)),
    reply_p99_ms: Math.round(pct(many.replies, 0.99)),
    reply_p95_ms_one: Math.round(pct(one.replies, 0.95)),
    cpu_us_per_update: Math.round(cpuMany),
    cpu_us_per_update_one: Math.round(cpuOne),
    cpu_per_update_ratio: r(cpuMany / cpuOne, 100),
  };
  console.log(
    `A: ${o.bots} bots on ${o.store}: ready in ${figures.startup_s} s (goal ≤ 30; one bot ${figures.startup_s_one} s), ` +
      `RSS ${figures.rss_mb} MB vs ${figures.rss_mb_one} MB for one: ${figures.rss_per_idle_bot_kb} kB per idle bot ` +
      `(goal ≤ 200); replies p95 ${figures.reply_p95_ms} ms (p50 ${figures.reply_p50_ms}, p99 ${figures.reply_p99_ms}; ` +
      `one bot ${figures.reply_p95_ms_one}), ${figures.unanswered} of ${figures.updates} unanswered; CPU per update ` +
      `${figures.cpu_us_per_update} µs vs ${figures.cpu_us_per_update_one} µs for one bot: ` +
      `×${figures.cpu_per_update_ratio} (goal ≤ 1.2)`,
  );
  return figures;
}
