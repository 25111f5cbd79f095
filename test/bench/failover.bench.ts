/**
 * `npm run bench -- failover [--mode webhook|polling] [--people 300] [--kills 10] [--warmup 75]`: issue 36's
 * scenario. Three `botflow run` processes on one PostgreSQL database, the example flows, the sandbox with
 * the platform's real limits, by webhook (through a round-robin balancer) and by long polling. About 300
 * people arrive over the run (failover-people.ts) and 16 probes write at known times; after the warm-up a
 * process is SIGKILLed every ~9 s (most often the dispatcher) and started again, then the three are
 * restarted one by one (SIGTERM, every 10 s) with a changed sign-up flow, then a tail. Prints, per mode,
 * reply latency before / during the kills / during the rolling restart / after, the takeovers (SIGKILL:
 * from the kill; SIGTERM: from the leases being freed, sampled every 50 ms), read-backs per kill, 429s,
 * the send rate while a backlog exists, what was lost, repeated or out of order; then ONE JSON line.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { messageIdOf } from '../../src/dispatch/sent-once.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import type { BotflowProcess } from '../runtime/child.ts';
import {
  freePort,
  type Intake,
  loadBalancer,
  platformFigures,
  startMember,
} from '../support/cluster-processes.ts';
import { freshDatabase } from '../support/postgres.ts';
import { backlogMix, faultGaps } from './failover-gaps.ts';
import { book, probe, type Reply, type Running, repliesOf, signUp, spread } from './failover-people.ts';
import { type Monitor, startMonitor, takeovers } from './failover-watch.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FLOWS = join(ROOT, 'flows');
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const MODES = (arg('mode', 'webhook,polling').split(',') as ('webhook' | 'polling')[]).filter(Boolean);
const PEOPLE = Number(arg('people', '300'));
const PROBES = 16;
const KILLS = Number(arg('kills', '10'));
const WARMUP_MS = Number(arg('warmup', '75')) * 1000; // 1,000+ replies before the first kill
const KILL_EVERY_MS = 9000;
const ROLL_EVERY_MS = 10_000;
const TAIL_MS = 20_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () => loadavg().map((n) => Number(n.toFixed(2)));

// mulberry32, seeded: a run can be repeated (BOTFLOW_BENCH_SEED).
function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The sign-up flow of the new version the rolling restart brings: two texts changed. */
function changeSignup(dir: string): void {
  const file = join(dir, 'flows', 'signup.flow.yaml');
  const source = readFileSync(file, 'utf8')
    .replace('version: 1', 'version: 2')
    .replace('Nice to meet you, {{name}}. How old', 'Nice to meet you, {{name}}! How old')
    .replace('"Your email address?"', '"Your email address, please?"');
  writeFileSync(file, source);
}
const V1 = [/Nice to meet you, .*\. How old/, /^Your email address\?$/];
const V2 = [/Nice to meet you, .*! How old/, /^Your email address, please\?$/];

async function scenario(mode: 'webhook' | 'polling', seed: number) {
  const random = seeded(seed);
  const db = await freshDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'botflow-failover-'));
  // The example flows' code imports ../src and packages: beside the copy, as in the repository.
  cpSync(FLOWS, join(dir, 'flows'), { recursive: true });
  for (const part of ['src', 'node_modules', 'package.json']) symlinkSync(join(ROOT, part), join(dir, part));
  const sandbox = await startSandbox();
  const cleanup: (() => unknown)[] = [
    () => sandbox.close(),
    // BOTFLOW_BENCH_KEEP_DB=1 keeps the database (its URL printed) to read the stages' times afterwards.
    () => (process.env.BOTFLOW_BENCH_KEEP_DB ? console.log(`kept database ${db.url}`) : db.drop()),
    () => rmSync(dir, { recursive: true, force: true }),
  ];
  let intake: Intake = { mode: 'polling' };
  if (mode === 'webhook') {
    const ports = [await freePort(), await freePort(), await freePort()];
    const lb = await loadBalancer(ports);
    cleanup.unshift(() => new Promise((resolve) => lb.close(resolve)));
    intake = { mode, ports, lbUrl: `http://127.0.0.1:${(lb.address() as AddressInfo).port}/hook` };
  }
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  cleanup.unshift(() => admin.end());
  const all: BotflowProcess[] = [];
  const processes: BotflowProcess[] = [];
  const start = (i: number) => {
    processes[i] = startMember(i, {
      dir,
      sandbox,
      databaseUrl: db.url,
      intake,
      ...(process.env.BOTFLOW_BENCH_LOGS ? { logLevel: 'info' } : {}),
    });
    all.push(processes[i]);
    return processes[i].waitFor(/botflow is running as/, 90_000);
  };
  cleanup.unshift(async () => {
    for (const bot of processes) bot?.child.kill('SIGKILL');
    await Promise.all(processes.map((bot) => bot?.exited));
  });
  try {
    await Promise.all([0, 1, 2].map(start));
    const monitor = startMonitor(admin);
    const running: Running = { on: true };
    const began = Date.now();
    const { people, probes } = await launchPeople(sandbox.control, random, running);
    const log = await faults(processes, start, monitor, random, () => changeSignup(dir));
    const endAt = Date.now() + TAIL_MS;
    await sleep(endAt - Date.now());
    running.on = false;
    await Promise.race([
      Promise.all([...people.map((p) => p.done), ...probes.map((p) => p.done)]),
      sleep(120_000),
    ]);
    await settle(admin);
    monitor.stop();
    const figures = await analyse({ sandbox, admin, people: [...people, ...probes], log, monitor, all });
    return { mode, seed, seconds: Math.round((Date.now() - began) / 1000), ...figures, loadavg: load() };
  } finally {
    for (const step of cleanup) await Promise.resolve(step()).catch(() => {});
  }
}

type Person = { uid: number; kind: string; done: Promise<unknown> };

/** Probes at once; the others arrive spread over the run, 80 % sign-up (a quarter in bursts), 20 % booking. */
async function launchPeople(
  ctl: Awaited<ReturnType<typeof startSandbox>>['control'],
  random: () => number,
  running: Running,
) {
  const probes: Person[] = [];
  for (let i = 0; i < PROBES; i++) {
    const { user_id: uid } = await ctl.createUser({ first_name: `Probe${i}` });
    probes.push({ uid, kind: 'probe', done: probe(ctl, uid, random, running).catch(() => {}) });
  }
  const people: Person[] = [];
  const spanMs = WARMUP_MS + KILLS * KILL_EVERY_MS + 3 * ROLL_EVERY_MS;
  void (async () => {
    for (let i = 0; i < PEOPLE && running.on; i++) {
      const { user_id: uid } = await ctl.createUser({ first_name: `P${i}` });
      const r = random();
      const kind = r < 0.2 ? 'booking' : r < 0.4 ? 'signup-burst' : r < 0.5 ? 'signup-wrong' : 'signup';
      const done =
        kind === 'booking'
          ? book(ctl, uid, random)
          : signUp(ctl, uid, random, { burst: kind === 'signup-burst', wrongInput: kind === 'signup-wrong' });
      people.push({ uid, kind, done: done.catch(() => {}) });
      await sleep((spanMs / PEOPLE) * (0.5 + random()));
    }
  })();
  return { people, probes };
}

interface FaultLog {
  kills: { at: number; pid: number; dispatcher: boolean }[];
  terms: { at: number; pid: number }[];
  firstKillAt: number;
  rollAt: number;
  rollEndAt: number;
}

/** The warm-up, the kills, the rolling restart with the changed flow. */
async function faults(
  processes: BotflowProcess[],
  start: (i: number) => Promise<unknown>,
  monitor: Monitor,
  random: () => number,
  beforeRoll: () => void,
): Promise<FaultLog> {
  await sleep(WARMUP_MS);
  const log: FaultLog = { kills: [], terms: [], firstKillAt: Date.now(), rollAt: 0, rollEndAt: 0 };
  let restarted: Promise<unknown> = Promise.resolve();
  for (let k = 0; k < KILLS; k++) {
    await restarted;
    const dispatcher = monitor.dispatcherPid();
    const wantDispatcher = k % 10 < 7 && dispatcher !== undefined;
    const others = processes.map((_p, i) => i).filter((i) => processes[i]!.child.pid !== dispatcher);
    const i = wantDispatcher
      ? processes.findIndex((p) => p.child.pid === dispatcher)
      : others[Math.floor(random() * others.length)]!;
    const victim = processes[i]!;
    log.kills.push({ at: Date.now(), pid: victim.child.pid!, dispatcher: victim.child.pid === dispatcher });
    victim.child.kill('SIGKILL');
    await victim.exited;
    restarted = start(i);
    await sleep(KILL_EVERY_MS);
  }
  await restarted;
  beforeRoll();
  log.rollAt = Date.now();
  for (const i of [0, 1, 2]) {
    const bot = processes[i]!;
    log.terms.push({ at: Date.now(), pid: bot.child.pid! });
    bot.child.kill('SIGTERM');
    await bot.exited;
    await start(i);
    if (i < 2) await sleep(ROLL_EVERY_MS);
  }
  log.rollEndAt = Date.now();
  return log;
}

/** Waits until nothing is pending in the inbox or the outbox (2 minutes at most). */
async function settle(admin: pg.Client): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const { rows } = await admin.query<{ n: number }>(
      "SELECT (SELECT count(*) FROM inbox WHERE status = 'pending') + " +
        "(SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending')) AS n",
    );
    if (Number(rows[0]!.n) === 0) break;
    await sleep(500);
  }
  await sleep(2000); // a repeat would have arrived by now
}

async function analyse(o: {
  sandbox: Awaited<ReturnType<typeof startSandbox>>;
  admin: pg.Client;
  people: Person[];
  log: FaultLog;
  monitor: Monitor;
  all: BotflowProcess[];
}) {
  const { log } = o;
  const replies: Reply[] = [];
  let unanswered = 0;
  let mixedVersions = 0;
  let onVersion2 = 0; // people who went through the changed sign-up flow
  let unansweredShown = 0;
  const shown = new Map<string, { chat: number; at: number }>();
  for (const person of o.people) {
    const view = await o.sandbox.control.view(person.uid);
    const seen = repliesOf(view.messages);
    replies.push(...seen.replies);
    unanswered += seen.unanswered;
    if (seen.unanswered > 0 && unansweredShown++ < 3)
      console.log(
        `  unanswered (${person.kind} ${person.uid}): ${JSON.stringify(view.messages.map((m) => `${m.from}: ${m.text ?? '[no text]'}`))}`,
      );
    const bot = view.messages.filter((m) => m.from === 'bot');
    for (const m of bot) shown.set(m.message_id, { chat: person.uid, at: m.timestamp });
    const texts = bot.map((m) => m.text ?? '');
    const v1 = V1.some((re) => texts.some((t) => re.test(t)));
    const v2 = V2.some((re) => texts.some((t) => re.test(t)));
    if (v1 && v2) mixedVersions++;
    if (v2) onVersion2++;
  }
  const phase = (from: number, to: number) =>
    spread(replies.filter((r) => r.at >= from && r.at < to).map((r) => r.ms));
  const { rows } = await o.admin.query<{
    id: string;
    status: string;
    result: string | null;
    chat: string | null;
  }>(
    "SELECT id, status, result, chat_id AS chat FROM outbox WHERE op = 'sendMessage' OR kind = 'upload_and_send' ORDER BY id",
  );
  const recorded = new Set<string>();
  let outOfOrder = 0;
  const lastAtOfChat = new Map<string, number>();
  for (const row of rows) {
    const mid = row.result ? messageIdOf(JSON.parse(row.result)) : undefined;
    if (!mid) continue;
    recorded.add(mid);
    const at = shown.get(mid)?.at;
    if (at === undefined || row.chat === null) continue;
    if (at < (lastAtOfChat.get(row.chat) ?? 0)) outOfOrder++;
    lastAtOfChat.set(row.chat, at);
  }
  const duplicated = [...shown.keys()].filter((mid) => !recorded.has(mid)).length;
  const failed = rows.filter((r) => r.status === 'failed').length;
  const platform = await platformFigures(o.sandbox);
  const requests = await o.sandbox.control.requests();
  const readBacks = requests.filter((r) => r.op === 'getMessages').map((r) => r.time);
  const faultsAt = [...log.kills.map((k) => k.at), log.rollAt, Number.POSITIVE_INFINITY];
  const readBacksPerKill = log.kills.map(
    (k, i) => readBacks.filter((t) => t >= k.at && t < faultsAt[i + 1]!).length,
  );
  const output = o.all.map((p) => p.stdout() + p.stderr()).join('\n');
  // BOTFLOW_BENCH_LOGS=dir keeps every process's output there (pid.log), to read what happened around a figure.
  const keep = process.env.BOTFLOW_BENCH_LOGS;
  if (keep) for (const p of o.all) writeFileSync(join(keep, `${p.child.pid}.log`), p.stdout() + p.stderr());
  return {
    replies: replies.length,
    latency: {
      before: phase(0, log.firstKillAt),
      kills: phase(log.firstKillAt, log.rollAt),
      rolling: phase(log.rollAt, log.rollEndAt),
      after: phase(log.rollEndAt, Number.POSITIVE_INFINITY),
    },
    takeovers: takeovers(o.monitor, log),
    readBacks: readBacks.length,
    readBacksPerKill,
    readBacksDuringRoll: readBacks.filter((t) => t >= log.rollAt && t < log.rollEndAt).length,
    backlogSendRate: o.monitor.backlogRate(requests),
    backlogMix: backlogMix(o.monitor, requests),
    faultGaps: faultGaps(requests, log),
    http429: platform.http429.length,
    busiestSecond: platform.busiestSecond,
    busiestChatSecond: platform.busiestChatSecond,
    byOp: platform.byOp,
    unanswered,
    failed,
    duplicated,
    outOfOrder,
    mixedVersions,
    onVersion2,
    batchesOfMovedPartitions: (output.match(/a partition of the batch moved to another process/g) ?? [])
      .length,
    leasesLapsedWhileAlive: (output.match(/leases lapsed while this process was alive/g) ?? []).length,
    sentWhileAnotherSent: (output.match(/sending although another process still sends/g) ?? []).length,
    kills: log.kills.length,
    dispatcherKills: log.kills.filter((k) => k.dispatcher).length,
  };
}

const seed = Number(process.env.BOTFLOW_BENCH_SEED) || Math.floor(Math.random() * 2 ** 31) + 1;
console.log(
  `failover: seed ${seed} (BOTFLOW_BENCH_SEED=${seed} repeats the choices), load average ${load().join(' ')}`,
);
const results = [];
for (const mode of MODES) {
  const result = await scenario(mode, seed);
  const l = result.latency;
  const line = (name: string, s: ReturnType<typeof spread>) =>
    `  ${name.padEnd(8)} n=${s.n} p50 ${s.p50} ms, p95 ${s.p95} ms, p99 ${s.p99} ms, max ${s.max} ms`;
  console.log(
    `\n${mode}: ${result.replies} replies in ${result.seconds} s, load average ${result.loadavg.join(' ')}`,
  );
  console.log(
    [
      line('before', l.before),
      line('kills', l.kills),
      line('rolling', l.rolling),
      line('after', l.after),
    ].join('\n'),
  );
  console.log(`  takeovers: ${JSON.stringify(result.takeovers)}`);
  console.log(
    `  read-backs ${result.readBacks} (per kill ${result.readBacksPerKill.join(' ')}), 429s ${result.http429}`,
  );
  console.log(`  backlog send rate ${JSON.stringify(result.backlogSendRate)}`);
  console.log(`  backlog requests/s by op ${JSON.stringify(result.backlogMix)}`);
  console.log(`  after each fault ${JSON.stringify(result.faultGaps)}`);
  console.log(
    `  unanswered ${result.unanswered}, failed ${result.failed}, duplicated ${result.duplicated}, out of order ${result.outOfOrder}, ` +
      `mixed versions ${result.mixedVersions} (${result.onVersion2} on the new version), leases lapsed while alive ${result.leasesLapsedWhileAlive}, ` +
      `batches of moved partitions ${result.batchesOfMovedPartitions}`,
  );
  results.push(result);
}
console.log(
  JSON.stringify({ bench: 'failover', seed, people: PEOPLE, probes: PROBES, kills: KILLS, results }),
);
process.exit(0);
