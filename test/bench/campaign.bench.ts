// `npm run bench -- campaign [--people N]`: a campaign of N recipients (default 10,000) at the platform's
// limit while people chat, against the sandbox with its real limits (30 requests/s overall, 2/s per chat),
// the engine on a SQLite file with its writer thread and the throttled scheduler, as `botflow run` has
// them (intake appends through the writer thread too). First the chat load
// alone (interactive_p95_ms_without), then the same chat load during the campaign (interactive_p95_ms):
// a reply's latency is from the person's message to the bot's answer reaching the sandbox. Figures first,
// then one JSON line. Goals: interactive p95 ≤ max(1.5× without, without + 30 ms) (p99 printed),
// campaign ≥ 12 sends/s with 10 chatters, 0 429s.
//
// `--window S` measures a fixed window instead of the whole campaign: S seconds of chat during the campaign
// at the real limits, then the campaign is cancelled (what grows with the recipients is the queue, so
// `--people 100000 --window 180` is the 100,000-queued figure). The JSON also gives the load average
// (os.loadavg) and the engine's event-loop delay during the campaign (where the time goes).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { BotApi } from '../../src/client/client.ts';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { createEngine } from '../../src/engine/engine.ts';
import { compileFlow } from '../../src/flows/load.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { createUser, startBot } from '../../src/sandbox/control/people-chats.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { openDatabase } from '../../src/store/database.ts';
import { startWriterThread } from '../../src/store/sqlite/writer-thread.ts';

const { values } = parseArgs({
  options: {
    people: { type: 'string' },
    chatters: { type: 'string' },
    rate: { type: 'string' },
    window: { type: 'string' },
  },
});
const WINDOW_S = values.window === undefined ? undefined : Number(values.window);
const RATE = values.rate ?? '25/s';
const PEOPLE = Number(values.people ?? 10_000);
const CHATTERS = Number(values.chatters ?? 10);
const CHAT_EVERY_MS = 1_000; // each chatter writes once a second
const WITHOUT_MS = 20_000;

const CHAT = `flow: chat
start: talk
triggers:
  - any_message: true
steps:
  talk:
    type: input
    say: "Say something"
    input: text
    save: said
    retries: { max: 3, exhausted: { goto: again } }
    next: again
  again:
    type: input
    say: "Got {{said}}"
    input: text
    save: said
    retries: { max: 3, exhausted: { goto: talk } }
    next: talk
`;
const OFFER = `flow: offer
start: offer
steps:
  offer:
    type: end
    say: "Spring offer {{code}}"
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
};

const sandbox = await startSandbox({});
const dir = mkdtempSync(join(tmpdir(), 'botflow-bench-campaign-'));
const db = openDatabase({ path: join(dir, 'bot.db') });
const writer = await startWriterThread({ path: join(dir, 'bot.db') });
const flows = [CHAT, OFFER].map(
  (source, i) => compileFlow(source, `${['chat', 'offer'][i]}.flow.yaml`).flow!,
);
const api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
const scheduler = new Scheduler({ api, limits: { global: 30, perChat: 2 } });
const engine = createEngine({ db, writer, flows, api, scheduler, secret: 'campaign-bench-secret' });

// Recipients: people whose dialog with the bot exists (a finished chat session stands for their past).
console.log(`making ${PEOPLE} recipients and ${CHATTERS} chatters in the sandbox…`);
const inject = async (url: string, payload: object) =>
  (await sandbox.app.inject({ method: 'POST', url, payload })).json() as Record<string, unknown>;
const insert = db.prepare(
  'INSERT INTO sessions (conversation_key, flow_id, flow_version, status, state_value, snapshot, revision, ' +
    "step_instance, started_revision, chat_id, user_id, locale, started_at, updated_at) VALUES (?, 'chat', ?, 'done', " +
    `'"talk"', '{"status":"done","value":"talk","context":{"vars":{},"retries":0}}', 1, 1, 1, ?, ?, 'en', 0, 0)`,
);
const rows: [string, number, number][] = [];
const setupStarted = performance.now();
// The sandbox's own control functions, called directly (the same as POST /_sandbox/users and /start,
// without an HTTP round trip each: 100,000 recipients are made in seconds).
const platform = sandbox.app.sandbox.platform;
for (let i = 0; i < PEOPLE; i++) {
  const user = createUser(platform, { first_name: `R${i}` });
  const { chat_id } = startBot(platform, user.user_id);
  rows.push([`u:${user.user_id}`, Number(chat_id), Number(user.user_id)]);
}
db.transaction(() => {
  for (const [key, chatId, userId] of rows) insert.run(key, flows[0]!.version, chatId, userId);
})();
const chatters: { userId: number; chatId: number }[] = [];
for (let i = 0; i < CHATTERS; i++) {
  const user = await inject('/_sandbox/users', { first_name: `C${i}` });
  const { chat_id } = await inject('/_sandbox/start', { user_id: user.user_id });
  chatters.push({ userId: Number(user.user_id), chatId: Number(chat_id) });
}

// Intake: every update the sandbox produces goes into the inbox (as the webhook would).
sandbox.onUpdate((update) => {
  void writer
    .append([{ ...updateEntry(JSON.stringify(update)), receivedAt: Date.now() }])
    .then(() => engine.notify());
});
engine.start();
await sleep(1_500);

/** Chatters write once a second each until `until()`; returns each reply's latency (ms). */
async function chat(until: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  const pending = new Map<number, number[]>();
  const since = Date.now();
  let n = 0;
  const people = chatters.map(async (c, i) => {
    await sleep((i * CHAT_EVERY_MS) / chatters.length);
    // Every message is answered with one message: the flow goes back and forth between two questions.
    while (!until()) {
      const list = pending.get(c.chatId) ?? [];
      list.push(Date.now());
      pending.set(c.chatId, list);
      await sandbox.control.sendText(c.userId, 'dialog', `hello ${n++}`);
      await sleep(CHAT_EVERY_MS);
    }
  });
  await Promise.all(people);
  await sleep(3_000); // the last answers
  // Each chatter's sends to their chat, in order, answer their messages in order.
  const byChat = new Map<number, number[]>();
  for (const r of sandbox.requestLog.list(since))
    if (r.op === 'sendMessage' && r.status === 200 && r.chat !== undefined && pending.has(r.chat))
      byChat.set(r.chat, [...(byChat.get(r.chat) ?? []), r.time]);
  for (const [chatId, sent] of pending) {
    const answered = byChat.get(chatId) ?? [];
    sent.forEach((t, i) => {
      if (answered[i] !== undefined) latencies.push(answered[i]! - t);
    });
  }
  return latencies;
}

console.log(
  `recipients made in ${Math.round((performance.now() - setupStarted) / 100) / 10} s; chat alone for ${WITHOUT_MS / 1000} s…`,
);
const aloneUntil = Date.now() + WITHOUT_MS;
const without = await chat(() => Date.now() > aloneUntil);

console.log(
  `campaign to ${PEOPLE} people at ${RATE} while ${CHATTERS} people chat` +
    (WINDOW_S === undefined ? '…' : ` (a ${WINDOW_S} s window, then cancelled)…`),
);
const since = Date.now();
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const started = await engine.campaigns.start({
  name: 'bench',
  flow: 'offer',
  with: { code: 'B' },
  rate: RATE,
});
const begun = performance.now();
let done = false;
const watch = (async () => {
  while (!done) {
    await sleep(500);
    if (WINDOW_S !== undefined && performance.now() - begun >= WINDOW_S * 1000) done = true;
    // A cheap look (status() also tallies the funnel, which is not what is measured here).
    else if (db.prepare('SELECT status FROM campaigns WHERE id = ?').pluck().get(started.id) === 'done')
      done = true;
  }
})();
const during = await chat(() => done);
await watch;
const seconds = (performance.now() - begun) / 1000;
delay.disable();
if (WINDOW_S !== undefined) await engine.campaigns.cancel(started.id);
await engine.drain();
const status = await engine.campaigns.status(started.id);
const log = sandbox.requestLog.list(since);
const chatIds = new Set(chatters.map((c) => c.chatId));
const end = since + Math.round(seconds * 1000);
const campaignSends = log.filter(
  (r) => r.op === 'sendMessage' && r.status === 200 && r.time <= end && !chatIds.has(r.chat ?? -1),
).length;
const load = loadavg().map((l) => Math.round(l * 100) / 100);
const result = {
  bench: 'campaign',
  recipients: PEOPLE,
  rate: RATE,
  chatters: CHATTERS,
  window_s: WINDOW_S ?? null,
  campaign_sends: campaignSends,
  campaign_seconds: Math.round(seconds * 10) / 10,
  campaign_sends_per_s: Math.round((campaignSends / seconds) * 100) / 100,
  interactive_replies: during.length,
  interactive_p95_ms: Math.round(pct(during, 0.95)),
  interactive_p95_ms_without: Math.round(pct(without, 0.95)),
  interactive_p99_ms: Math.round(pct(during, 0.99)),
  interactive_p99_ms_without: Math.round(pct(without, 0.99)),
  interactive_p50_ms: Math.round(pct(during, 0.5)),
  interactive_p50_ms_without: Math.round(pct(without, 0.5)),
  p95_goal_ms: Math.round(Math.max(1.5 * pct(without, 0.95), pct(without, 0.95) + 30)),
  event_loop_delay_p99_ms: Math.round(delay.percentile(99) / 1e5) / 10,
  event_loop_delay_max_ms: Math.round(delay.max / 1e5) / 10,
  http_429: log.filter((r) => r.status === 429).length,
  skipped: status.byStatus.skipped,
  loadavg: load,
};
console.log(
  `campaign: ${campaignSends} sends in ${result.campaign_seconds} s (${result.campaign_sends_per_s}/s, goal ≥ 12); ` +
    `replies p95 ${result.interactive_p95_ms} ms during, ${result.interactive_p95_ms_without} ms without ` +
    `(goal ≤ ${result.p95_goal_ms} ms), p99 ${result.interactive_p99_ms} / ${result.interactive_p99_ms_without} ms; ` +
    `event loop delay p99 ${result.event_loop_delay_p99_ms} ms; 429s: ${result.http_429}; load average ${load.join(' ')}`,
);
console.log(JSON.stringify(result));

await engine.stop({ waitMs: 2_000 });
scheduler.close();
await api.close();
await sandbox.close();
await writer.close();
db.close();
rmSync(dir, { recursive: true, force: true });
