/**
 * Part C of the bots benchmark (bots.bench.ts): the rate-limit scheduler alone, one per bot as a deployment
 * has them, `bots` of them on one virtual clock with a fake transport that answers at once.
 *
 * - saturated: every bot keeps far more bulk sends queued than its budget (30/s, the default limits and
 *   margin) for `seconds` of virtual time; each bot's share of its own budget is the calls it made divided
 *   by 30 × seconds. The figure: the smallest and largest share and their ratio.
 * - flood: every bot answers one reply a second (a chat each time), and bot 0 submits 100× that; the
 *   others' p95 wait (submit to call, virtual ms) with the flood and without it.
 */
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { FakeApi, FakeClock } from '../dispatch/fakes.ts';

const STEP_MS = 50;
const BUDGET_PER_S = 30;

const pct = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
};

function fleet(bots: number) {
  const clock = new FakeClock();
  const apis = Array.from({ length: bots }, () => new FakeApi(clock));
  const schedulers = apis.map((api) => new Scheduler({ api, now: clock.now, setTimer: clock.setTimer }));
  return {
    clock,
    apis,
    schedulers,
    close: () => {
      for (const s of schedulers) s.close();
    },
  };
}

/** Every bot saturated: each one's calls over `seconds` as a share of 30 × seconds. */
async function saturated(bots: number, seconds: number) {
  const { clock, apis, schedulers, close } = fleet(bots);
  const queued = BUDGET_PER_S * seconds * 2;
  schedulers.forEach((scheduler, b) => {
    for (let i = 0; i < queued; i++)
      scheduler
        .submit({ op: 'sendMessage', args: { chat_id: 1 + (i % 500), text: `${b}:${i}` }, priority: 'bulk' })
        .catch(() => {});
  });
  const end = seconds * 1000;
  while (clock.time < end) await clock.advance(STEP_MS);
  const shares = apis.map((api) => api.calls.filter((c) => c.at < end).length / (BUDGET_PER_S * seconds));
  close();
  const min = Math.min(...shares);
  const max = Math.max(...shares);
  return { min, max, ratio: max > 0 ? min / max : 0 };
}

/** One reply a second per bot; bot 0 also `flood`× that when asked. The others' waits (virtual ms). */
async function replies(bots: number, seconds: number, flood: number) {
  const { clock, apis, schedulers, close } = fleet(bots);
  const waits: number[] = [];
  const submit = (b: number, chat: number, note: boolean) => {
    const at = clock.time;
    schedulers[b]!.submit({ op: 'sendMessage', args: { chat_id: chat, text: 'r' }, priority: 'reply' })
      .then(() => {
        if (note) waits.push(clock.time - at);
      })
      .catch(() => {});
  };
  const end = seconds * 1000;
  let chat = 1;
  for (let t = 0; t < end; t += STEP_MS) {
    // Each bot's one reply a second, spread over the second (bot b at its own offset).
    for (let b = 0; b < bots; b++)
      if (Math.floor((b * 1000) / bots / STEP_MS) * STEP_MS === t % 1000)
        submit(b, chat++, b !== 0 || flood === 0);
    const perStep = (flood * STEP_MS) / 1000;
    for (let i = 0; i < perStep; i++) submit(0, 100_000 + (chat++ % 5000), false);
    await clock.advance(STEP_MS);
  }
  const flooderCalls = apis[0]!.calls.filter((c) => c.at < end).length;
  await clock.advance(5_000); // the last replies
  close();
  return { p95: pct(waits, 0.95), p99: pct(waits, 0.99), count: waits.length, flooderCalls };
}

export async function schedulerPart(bots: number, seconds: number) {
  const started = performance.now();
  const fair = await saturated(bots, seconds);
  const calm = await replies(bots, seconds, 0);
  const flooded = await replies(bots, seconds, 100);
  const r = (x: number, d = 1000) => Math.round(x * d) / d;
  const figures = {
    scheduler_bots: bots,
    scheduler_virtual_s: seconds,
    fair_share_min: r(fair.min),
    fair_share_max: r(fair.max),
    fair_share_ratio: r(fair.ratio),
    others_p95_wait_ms: calm.p95,
    others_p95_wait_ms_flood: flooded.p95,
    others_p99_wait_ms_flood: flooded.p99,
    flooder_sends_per_s: r(flooded.flooderCalls / seconds, 10),
    scheduler_wall_s: r((performance.now() - started) / 1000, 10),
  };
  console.log(
    `C: ${bots} schedulers saturated for ${seconds} virtual s: each bot's share of its 30/s ${figures.fair_share_min}` +
      `..${figures.fair_share_max} (ratio ${figures.fair_share_ratio}); one reply/s per bot: others' p95 wait ` +
      `${figures.others_p95_wait_ms} ms alone, ${figures.others_p95_wait_ms_flood} ms while bot 0 floods 100× ` +
      `(it sends ${figures.flooder_sends_per_s}/s)`,
  );
  return figures;
}
