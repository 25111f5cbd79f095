/**
 * Intake benchmark: webhook throughput and acknowledgement latency with persistence (every 200 follows a
 * synchronous=FULL group commit), committed on a writer thread as `botflow run` does and on the receiver's
 * own connection, beside a bare fastify route that stores nothing. The receiver runs in a child process; the load generator (undici Pool, a fixed number of requests in flight) runs here, on the
 * same machine. Prints figures, then one JSON line.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { InboxWriter } from '../../src/inbox/inbox-writer.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import { startChild } from '../crash-load.ts';

const FIXTURE = new URL('../intake/fixtures/webhook-child.ts', import.meta.url).pathname;
const SECRET = 'bench_secret_value';
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 48);
const WARMUP_MS = 1500;
const MEASURE_MS = Number(process.env.BENCH_SECONDS ?? 6) * 1000;

interface Result {
  acksPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  acked: number;
  /** CPU time per acknowledged update, in µs: the receiver's and the load generator's (robust on a busy machine). */
  receiverCpuUs: number;
  generatorCpuUs: number;
}

/** CPU seconds used so far by process `pid` (Linux /proc; NaN elsewhere). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return Number.NaN;
  }
}

let sequence = 0;
function body(): string {
  const i = sequence++;
  return JSON.stringify({
    update_type: 'message_created',
    timestamp: 1775025604499 + i,
    message: {
      recipient: { chat_id: 182182182 + (i % 1000), chat_type: 'dialog', user_id: 229229229 },
      timestamp: 1775025603399 + i,
      body: { mid: `mid.bench${process.pid}.${i}`, seq: 1, text: 'Здравствуйте! Хочу записаться на приём.' },
      sender: {
        user_id: 123456789 + (i % 1000),
        first_name: 'Иван',
        last_name: 'Петров',
        is_bot: false,
        last_activity_time: 1775024330000,
        name: 'Иван Петров',
      },
    },
    user_locale: 'ru',
  });
}

async function load(port: number, receiverPid: number): Promise<Result> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: IN_FLIGHT, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let acked = 0;
  const began = performance.now();
  const measureFrom = began + WARMUP_MS;
  const end = measureFrom + MEASURE_MS;
  let receiverCpuAtStart = 0;
  let generatorCpuAtStart = { user: 0, system: 0 };
  setTimeout(() => {
    receiverCpuAtStart = cpuSeconds(receiverPid);
    generatorCpuAtStart = process.cpuUsage();
  }, WARMUP_MS);
  const worker = async () => {
    while (performance.now() < end) {
      const sent = performance.now();
      try {
        const response = await pool.request({
          method: 'POST',
          path: '/webhook',
          headers: { 'content-type': 'application/json', 'x-svc-bot-api-secret': SECRET },
          body: body(),
        });
        await response.body.dump();
        const now = performance.now();
        if (response.statusCode !== 200) errors++;
        else if (sent >= measureFrom && now <= end) {
          acked++;
          latencies.push(now - sent);
        }
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const receiverCpu = cpuSeconds(receiverPid) - receiverCpuAtStart;
  const generatorCpu = process.cpuUsage(generatorCpuAtStart);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    acksPerSecond: acked / (MEASURE_MS / 1000),
    p50: at(0.5),
    p99: at(0.99),
    max: latencies.at(-1) ?? 0,
    errors,
    acked,
    receiverCpuUs: (receiverCpu * 1e6) / Math.max(1, acked),
    generatorCpuUs: (generatorCpu.user + generatorCpu.system) / Math.max(1, acked),
  };
}

async function measure(mode: string, dir: string): Promise<Result> {
  const dbPath = join(dir, `${mode}.db`);
  const { child, port } = await startChild(FIXTURE, [dbPath, SECRET, mode]);
  try {
    return await load(port, child.pid!);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/** The intake path without HTTP: parse, keys, group commit (FULL) in batches of IN_FLIGHT; CPU µs per update. */
async function intakePathCpuUs(dir: string): Promise<number> {
  const db = openDatabase({ path: join(dir, 'path.db') });
  const writer = new InboxWriter({ inbox: new InboxStore(db) });
  const total = 20_000;
  const started = process.cpuUsage();
  for (let done = 0; done < total; done += IN_FLIGHT) {
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => writer.submit(updateEntry(body()))));
  }
  const used = process.cpuUsage(started);
  db.close();
  return (used.user + used.system) / total;
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));
const dir = mkdtempSync(join(tmpdir(), 'botflow-bench-intake-'));
try {
  const bare = await measure('bare', dir);
  const thread = await measure('thread', dir);
  const full = await measure('full', dir);
  const normal = await measure('normal', dir);
  const pathCpuUs = await intakePathCpuUs(dir);
  const db = openDatabase({ path: join(dir, 'full.db') });
  const stored = db.prepare('SELECT count(*) FROM inbox').pluck().get() as number;
  db.close();

  const line = (name: string, r: Result) =>
    `${name.padEnd(38)} ${Math.round(r.acksPerSecond).toString().padStart(7)} acks/s   ` +
    `p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   max ${r.max.toFixed(1).padStart(6)} ms   ` +
    `CPU/ack: receiver ${Math.round(r.receiverCpuUs)} µs, generator ${Math.round(r.generatorCpuUs)} µs` +
    (r.errors ? `   ${r.errors} errors` : '');
  console.log(
    `webhook intake, ${IN_FLIGHT} requests in flight, ${MEASURE_MS / 1000} s after ${WARMUP_MS} ms warm-up`,
  );
  console.log(line('bare fastify route (stores nothing)', bare));
  console.log(line('botflow webhook, synchronous=FULL', full));
  console.log(line('  … committing on a writer thread', thread));
  console.log(line('botflow webhook, synchronous=NORMAL', normal));
  console.log(
    `intake path without HTTP (parse, keys, FULL group commit): ${pathCpuUs.toFixed(1)} µs CPU per update`,
  );
  console.log(`rows in the FULL inbox: ${stored} (every 200 is a committed row; warm-up included)`);
  console.log(
    JSON.stringify({
      bench: 'intake',
      acks_per_s: Math.round(full.acksPerSecond),
      ack_p50_ms: round(full.p50),
      ack_p99_ms: round(full.p99),
      bare_acks_per_s: Math.round(bare.acksPerSecond),
      writer_thread_acks_per_s: Math.round(thread.acksPerSecond),
      writer_thread_ack_p99_ms: round(thread.p99),
      normal_acks_per_s: Math.round(normal.acksPerSecond),
      normal_ack_p99_ms: round(normal.p99),
      receiver_cpu_us_per_ack: Math.round(full.receiverCpuUs),
      bare_receiver_cpu_us_per_ack: Math.round(bare.receiverCpuUs),
      intake_path_cpu_us: round(pathCpuUs, 1),
      in_flight: IN_FLIGHT,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
