// `npm run bench -- bots [--part A,B,C] [--bots N] [--store sqlite|postgres] …`: many bots (issue 39).
//
// A: one deployment process serving N bots (default 1,000) in webhook mode against ONE sandbox hosting them
//    all (bots-deployment.ts): startup_s (start to /readyz 200), rss_per_idle_bot_kb (beyond a 1-bot
//    deployment's RSS), reply_p95_ms with N bots × 1 chatter at one message per 10 s, cpu_per_update_ratio
//    (the N-bot deployment's CPU per update over a 1-bot deployment's at the same total rate, capped at what
//    one bot may answer). On SQLite files, or `--store postgres` (127.0.0.1:5432 db test, a schema per bot,
//    dropped after).
// B: `--busy` bots (default 10) each answering a flood at its full 30/s against the sandbox (real time,
//    limits on), two deployment processes on PostgreSQL (bots-busy.ts): busy_min_rps, http_429, the
//    min/max share ratio, CPU per send.
// C: the scheduler alone, `--scheduler-bots` (default 100) on a virtual clock (bots-scheduler.ts).
//
// Figures first, then one JSON line (with the load average before and after).
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { busyPart } from './bots-busy.ts';
import { deploymentPart } from './bots-deployment.ts';
import { schedulerPart } from './bots-scheduler.ts';

const { values } = parseArgs({
  options: {
    part: { type: 'string' },
    bots: { type: 'string' },
    store: { type: 'string' },
    'chat-s': { type: 'string' },
    busy: { type: 'string' },
    'busy-s': { type: 'string' },
    'scheduler-bots': { type: 'string' },
    'scheduler-s': { type: 'string' },
    'start-timeout-s': { type: 'string' },
  },
});
const parts = (values.part ?? 'A,B,C').toUpperCase().split(',');
const load = () => loadavg().map((l) => Math.round(l * 100) / 100);
const result: Record<string, unknown> = { bench: 'bots', parts: parts.join(','), loadavg_before: load() };

if (parts.includes('C')) {
  Object.assign(
    result,
    await schedulerPart(Number(values['scheduler-bots'] ?? 100), Number(values['scheduler-s'] ?? 20)),
  );
}
if (parts.includes('A')) {
  Object.assign(
    result,
    await deploymentPart({
      bots: Number(values.bots ?? 1000),
      store: values.store === 'postgres' ? 'postgres' : 'sqlite',
      chatSeconds: Number(values['chat-s'] ?? 60),
      startTimeoutS: Number(values['start-timeout-s'] ?? 600),
    }),
  );
}
if (parts.includes('B')) {
  Object.assign(result, await busyPart(Number(values.busy ?? 10), Number(values['busy-s'] ?? 30)));
}
result.loadavg = load();
console.log(`load average ${(result.loadavg as number[]).join(' ')}`);
console.log(JSON.stringify(result));
process.exit(0);
