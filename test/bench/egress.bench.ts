// `npm run bench -- egress`: the dispatch scheduler against the sandbox with the platform's real limits
// (30 requests/s overall, 2/s per chat). Load: 3,000 bulk sends over 300 chats (100 of them to one hot
// chat) queued at once, and 300 callback presses arriving while the backlog drains, each answered
// through the scheduler. Then the same load fired by a naive client (everything at once, no limiter),
// and the scheduler's memory per idle chat for 100,000 chats. Figures first, then one JSON line.
import { BotApi } from '../../src/client/client.ts';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import type { ApiCaller } from '../../src/client/scheduler/types.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';

const CHATS = 300;
const SENDS = 3_000;
const HOT_SENDS = 100;
const CALLBACKS = 300;
const KEYBOARD_CHATS = 100;
const PRESS_EVERY_MS = 300;
const IDLE_CHATS = 100_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;

async function setUp(sandbox: Sandbox) {
  const people: { userId: number; chatId: number }[] = [];
  for (let i = 0; i < CHATS; i++) {
    const user = await sandbox.control.createUser({ first_name: `P${i}` });
    const { chat_id } = await sandbox.control.startBot(user.user_id);
    people.push({ userId: user.user_id, chatId: chat_id });
  }
  return people;
}

/** Bulk sends: 100 to the hot chat (index 0), the rest spread over the other chats; texts number each chat's sends. */
function sendPlan(people: { chatId: number }[]): { chatId: number; text: string }[] {
  const plan: { chatId: number; text: string }[] = [];
  const counters = new Map<number, number>();
  const next = (chatId: number) => {
    const n = counters.get(chatId) ?? 0;
    counters.set(chatId, n + 1);
    plan.push({ chatId, text: `s${chatId}-${n}` });
  };
  for (let i = 0; i < HOT_SENDS; i++) next(people[0]!.chatId);
  for (let i = 0; plan.length < SENDS; i++) next(people[1 + (i % (people.length - 1))]!.chatId);
  return plan;
}

async function keyboards(scheduler: Scheduler, people: { userId: number; chatId: number }[]) {
  const chats = people.slice(1, 1 + KEYBOARD_CHATS);
  return Promise.all(
    chats.map(async (p) => {
      const sent = await scheduler.submit({
        op: 'sendMessage',
        args: {
          chat_id: p.chatId,
          text: 'Menu',
          attachments: [
            {
              type: 'inline_keyboard',
              payload: { buttons: [[{ type: 'callback', text: 'Go', payload: 'go' }]] },
            },
          ],
        },
      });
      return { ...p, mid: sent.message.body.mid };
    }),
  );
}

async function scheduledRun(sandbox: Sandbox, api: BotApi, people: { userId: number; chatId: number }[]) {
  const scheduler = new Scheduler({ api });
  const menus = await keyboards(scheduler, people);
  await sleep(1_100);
  const latencies: number[] = [];
  const answers: Promise<unknown>[] = [];
  const stop = sandbox.onUpdate((update) => {
    const u = update as {
      update_type: string;
      callback?: { callback_id: string };
      message?: { recipient?: { chat_id?: number } };
    };
    if (u.update_type !== 'message_callback' || !u.callback) return;
    const t0 = performance.now();
    const chatId = u.message?.recipient?.chat_id;
    answers.push(
      scheduler
        .submit({
          op: 'answerCallback',
          args: { callback_id: u.callback.callback_id, notification: 'Done' },
          chatId,
        })
        .then(() => latencies.push(performance.now() - t0)),
    );
  });
  const since = Date.now();
  const started = performance.now();
  const plan = sendPlan(people);
  let hotDoneS = 0;
  let othersDoneS = 0;
  const sends = plan.map((s) =>
    scheduler
      .submit({ op: 'sendMessage', args: { chat_id: s.chatId, text: s.text }, priority: 'bulk' })
      .then(() => {
        const at = (performance.now() - started) / 1000;
        if (s.chatId === people[0]!.chatId) hotDoneS = at;
        else othersDoneS = at;
      }),
  );
  for (let i = 0; i < CALLBACKS; i++) {
    await sleep(PRESS_EVERY_MS);
    const menu = menus[i % menus.length]!;
    await sandbox.control.pressButton(menu.userId, menu.mid, 'go');
  }
  await Promise.all(sends);
  await Promise.all(answers);
  const seconds = (performance.now() - started) / 1000;
  stop();
  const log = sandbox.requestLog
    .list(since)
    .filter((r) => r.op === 'sendMessage' || r.op === 'answerCallback');
  const accepted = log.filter((r) => r.status === 200);
  const span = (accepted.at(-1)!.time - accepted[0]!.time) / 1000;

  // Order per chat, as the platform stored the messages.
  let violations = 0;
  let missing = 0;
  const perChat = new Map<number, number>();
  for (const s of plan) perChat.set(s.chatId, (perChat.get(s.chatId) ?? 0) + 1);
  for (const [chatId, expected] of perChat) {
    const { messages } = await scheduler.submit({ op: 'getMessages', args: { chat_id: chatId, count: 100 } });
    const seen = messages
      .map((m) => m.body.text ?? '')
      .reverse()
      .filter((t) => t.startsWith(`s${chatId}-`))
      .map((t) => Number(t.split('-')[1]));
    for (let i = 1; i < seen.length; i++) if (seen[i]! < seen[i - 1]!) violations++;
    missing += expected - seen.length;
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const metrics = scheduler.metrics();
  scheduler.close();
  return {
    seconds,
    hotDoneS,
    othersDoneS,
    requestsPerS: accepted.length / span,
    http429: log.length - accepted.length,
    violations,
    missing,
    callbackP50: pct(sorted, 0.5),
    callbackP95: pct(sorted, 0.95),
    callbackMax: sorted.at(-1) ?? 0,
    answered: latencies.length,
    metrics,
  };
}

async function naiveRun(sandbox: Sandbox, api: BotApi, people: { userId: number; chatId: number }[]) {
  const menus = people.slice(1, 1 + KEYBOARD_CHATS);
  const callbackIds: string[] = [];
  const stop = sandbox.onUpdate((update) => {
    const u = update as { update_type: string; callback?: { callback_id: string } };
    if (u.update_type === 'message_callback' && u.callback) callbackIds.push(u.callback.callback_id);
  });
  const scheduler = new Scheduler({ api });
  const made = await keyboards(scheduler, [people[0]!, ...menus]);
  scheduler.close();
  for (let i = 0; i < CALLBACKS; i++) {
    const menu = made[i % made.length]!;
    await sandbox.control.pressButton(menu.userId, menu.mid, 'go');
  }
  stop();
  await sleep(1_100);
  const since = Date.now();
  const started = performance.now();
  const calls = [
    ...sendPlan(people).map((s) => api.call('sendMessage', { chat_id: s.chatId, text: `naive ${s.text}` })),
    ...callbackIds.map((id) => api.call('answerCallback', { callback_id: id, notification: 'Done' })),
  ];
  const results = await Promise.allSettled(calls);
  const seconds = (performance.now() - started) / 1000;
  const log = sandbox.requestLog.list(since);
  const accepted = log.filter((r) => r.status === 200);
  // The same measure as the scheduler's row: accepted requests over the span from the first to the last.
  const span = accepted.length > 1 ? (accepted.at(-1)!.time - accepted[0]!.time) / 1000 : 1;
  return {
    seconds,
    delivered: results.filter((r) => r.status === 'fulfilled').length,
    http429: log.filter((r) => r.status === 429).length,
    requestsPerS: accepted.length / Math.max(span, 1),
  };
}

/** Heap per chat the scheduler keeps after one call to each of 100,000 chats (window still open), and after eviction. */
async function idleMemory() {
  const gc = (globalThis as { gc?: () => void }).gc;
  const api: ApiCaller = { call: async () => ({ success: true }) as never };
  const measure = () => {
    gc?.();
    gc?.();
    return process.memoryUsage().heapUsed;
  };
  // A short window, so that the per-chat state can be seen evicted once the window has passed.
  const windowMs = 1_000;
  const scheduler = new Scheduler({ api, limits: { global: 2 * IDLE_CHATS, perChat: 2, windowMs } });
  await Promise.all([]);
  const before = measure();
  const batch: Promise<unknown>[] = [];
  for (let chat = 1; chat <= IDLE_CHATS; chat++)
    batch.push(scheduler.submit({ op: 'deleteMessage', args: { message_id: 'm' }, chatId: chat }));
  await Promise.all(batch);
  batch.length = 0;
  await sleep(10);
  const tracked = scheduler.metrics().chatsTracked;
  const retained = (measure() - before) / IDLE_CHATS;
  await sleep(windowMs * 3);
  const trackedAfter = scheduler.metrics().chatsTracked;
  const afterEviction = (measure() - before) / IDLE_CHATS;
  scheduler.close();
  return { retained, tracked, afterEviction, trackedAfter, gcAvailable: Boolean(gc) };
}

async function main() {
  const sandbox = await startSandbox({});
  const api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
  console.log(`setting up ${CHATS} dialogs…`);
  const people = await setUp(sandbox);
  console.log(
    `scheduled run: ${SENDS} bulk sends (${HOT_SENDS} to one chat), ${CALLBACKS} callback presses every ${PRESS_EVERY_MS} ms`,
  );
  const run = await scheduledRun(sandbox, api, people);
  console.log(
    `  done in ${run.seconds.toFixed(1)} s: ${run.requestsPerS.toFixed(2)} requests/s, ${run.http429} × 429; ` +
      `the hot chat finished at ${run.hotDoneS.toFixed(1)} s, the others at ${run.othersDoneS.toFixed(1)} s`,
  );
  console.log('naive run: the same load, every call at once…');
  const naive = await naiveRun(sandbox, api, people);
  console.log(`  done in ${naive.seconds.toFixed(1)} s: ${naive.http429} × 429`);
  const memory = await idleMemory();
  await api.close();
  await sandbox.close();

  const row = (name: string, a: string | number, b: string | number) =>
    console.log(`${name.padEnd(34)}${String(a).padStart(14)}${String(b).padStart(14)}`);
  console.log('');
  row('', 'scheduler', 'naive');
  row('wall time (s)', run.seconds.toFixed(1), naive.seconds.toFixed(1));
  row('accepted requests/s (limit 30)', run.requestsPerS.toFixed(2), naive.requestsPerS.toFixed(2));
  row('HTTP 429 answers', run.http429, naive.http429);
  row('calls delivered', SENDS + run.answered - run.missing, naive.delivered);
  row('per-chat order violations', run.violations, 'n/a');
  row(
    'callback answer p50 / p95 (ms)',
    `${run.callbackP50.toFixed(0)} / ${run.callbackP95.toFixed(0)}`,
    'n/a',
  );
  row('callback answer max (ms)', run.callbackMax.toFixed(0), 'n/a');
  row('dead letters', run.metrics.deadLetters.total, 'n/a');
  row('call latency p50 / p95 (ms)', `${run.metrics.callMs.p50Ms} / ${run.metrics.callMs.p95Ms}`, 'n/a');
  row(`bytes per idle chat (${IDLE_CHATS / 1000}k chats)`, memory.retained.toFixed(0), 'n/a');
  row(
    `… after their window passed (chats tracked: ${memory.trackedAfter})`,
    memory.afterEviction.toFixed(0),
    'n/a',
  );
  if (!memory.gcAvailable)
    console.log('(run with --expose-gc for a clean memory figure: npm run bench does)');
  console.log(
    JSON.stringify({
      bench: 'egress',
      requests_per_s: Number(run.requestsPerS.toFixed(2)),
      http_429: run.http429,
      order_violations: run.violations,
      callback_p95_ms: Math.round(run.callbackP95),
      bytes_per_idle_chat: Math.round(memory.retained),
      bytes_per_chat_after_eviction: Math.round(memory.afterEviction),
      naive_http_429: naive.http429,
    }),
  );
}

await main();
