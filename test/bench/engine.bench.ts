// `npm run bench -- engine`: updates processed per second end to end (intake's inbox commit → committed
// transition, snapshot, timer and outbox rows, synchronous=FULL on a real file), as `botflow run` runs
// (writer thread) and on one connection; snapshot sizes; and the process's memory with 10,000 versus
// 1,000,000 persisted conversations. Prints figures, then ONE JSON line.
// `npm run bench -- engine --store postgres`: the same workload through the cluster engine on PostgreSQL, in
// one and in two processes, next to SQLite's writer-thread figure for the same workload (engine-postgres.ts).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../src/engine/engine.ts';
import { InboxWriter } from '../../src/inbox/inbox-writer.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';
import { startWriterThread } from '../../src/store/sqlite/writer-thread.ts';
import { engineChild, postgresThroughput } from './engine-postgres.ts';
import { menuFlow, message, SECRET, workload } from './engine-workload.ts';

function mb(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

/** Child mode: open a database holding `n` conversations, run 20,000 updates on random ones, report RSS. */
function rssChild(path: string, n: number): void {
  const db = openDatabase({ path });
  const engine = createEngine({ db, flows: [menuFlow], secret: SECRET });
  const inbox = new InboxStore(db);
  let t = Date.now();
  for (let chunk = 0; chunk < 40; chunk++) {
    const entries = Array.from({ length: 500 }, () => {
      const id = 1 + Math.floor(Math.random() * n);
      return updateEntry(message(id, ++t, 'ответ'));
    });
    inbox.append(entries);
    engine.processPending();
  }
  globalThis.gc?.();
  const sessions = (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
  const { rss, heapUsed } = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ rss, heapUsed, sessions })}\n`);
  db.close();
}

/** Fills a fresh database with `n` persisted conversations shaped like the throughput run's. */
function populate(path: string, n: number, sample: Record<string, unknown>): void {
  const db = openDatabase({ path, synchronous: 'NORMAL' });
  db.prepare(
    `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
     INSERT INTO sessions (conversation_key, flow_id, flow_version, status, state_value, snapshot, revision,
       step_instance, started_revision, chat_id, user_id, locale, started_at, updated_at)
     SELECT 'u:' || i, @flowId, @flowVersion, 'active', @stateValue, @snapshot, @revision, @stepInstance, 1,
       500000 + i, i, 'ru', @startedAt, @updatedAt + i FROM k`,
  ).run(n, sample);
  db.close();
}

function measureRss(
  dir: string,
  n: number,
  sample: Record<string, unknown>,
): { rssMb: number; heapMb: number; sessions: number } {
  const path = join(dir, `rss-${n}.db`);
  populate(path, n, sample);
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--expose-gc', fileURLToPath(import.meta.url), '--rss-child', path, String(n)],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (child.status !== 0) throw new Error(`rss child failed: ${child.stderr}`);
  const line = child.stdout.trim().split('\n').at(-1)!;
  const { rss, heapUsed, sessions } = JSON.parse(line) as { rss: number; heapUsed: number; sessions: number };
  rmSync(path, { force: true });
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
  return { rssMb: mb(rss), heapMb: mb(heapUsed), sessions };
}

interface Throughput {
  updatesPerSecond: number;
  seconds: number;
  cpuMicrosPerUpdate: number;
}

function measured(payloads: string[], started: number, cpuBefore: NodeJS.CpuUsage): Throughput {
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    updatesPerSecond: Math.round(payloads.length / seconds),
    seconds,
    cpuMicrosPerUpdate: Math.round((cpu.user + cpu.system) / payloads.length),
  };
}

/**
 * As `botflow run` does it: a started engine whose batches a writer thread commits while the next is
 * planned, and intake committing through the same thread (the webhook's group commit), notifying the engine.
 */
async function throughputWithWriterThread(path: string, payloads: string[]): Promise<Throughput> {
  const db = openDatabase({ path });
  const writer = await startWriterThread({ path });
  const engine = createEngine({ db, flows: [menuFlow], secret: SECRET, writer });
  const intake = new InboxWriter({
    inbox: new InboxStore(db),
    commit: (entries) => writer.append(entries),
    onAccepted: () => engine.notify(),
  });
  engine.start();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const accepted: Promise<unknown>[] = [];
  for (let i = 0; i < payloads.length; i += 500) {
    for (const payload of payloads.slice(i, i + 500)) accepted.push(intake.submit(updateEntry(payload)));
    await intake.flush(); // arrivals keep coming while the engine works: yield between deliveries
  }
  await Promise.all(accepted);
  await engine.drain();
  const result = measured(payloads, started, cpuBefore);
  await engine.stop();
  await writer.close();
  db.close();
  return result;
}

/** Everything on one connection: intake's append, then the engine's batches, in turn. */
function throughputOnOneConnection(path: string, payloads: string[]): Throughput {
  const db = openDatabase({ path });
  const engine = createEngine({ db, flows: [menuFlow], secret: SECRET });
  const inbox = new InboxStore(db);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < payloads.length; i += 500) {
    inbox.append(payloads.slice(i, i + 500).map((p) => updateEntry(p))); // intake's group commit
    engine.processPending();
  }
  const result = measured(payloads, started, cpuBefore);
  db.close();
  return result;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-engine-bench-'));
  try {
    const people = 10_000;
    const rounds = 10;
    const threaded = await throughputWithWriterThread(join(dir, 'threaded.db'), workload(people, rounds));
    const oneConnection = throughputOnOneConnection(join(dir, 'throughput.db'), workload(people, rounds));
    const total = people * (rounds + 1);

    const db = openDatabase({ path: join(dir, 'threaded.db') }); // synchronous=FULL, WAL: production defaults
    const counts = db.prepare('SELECT status, count(*) AS n FROM inbox GROUP BY status').all();
    const outboxRows = (db.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;
    const sizes = (
      db.prepare('SELECT length(snapshot) AS n FROM sessions ORDER BY n').all() as { n: number }[]
    ).map((r) => r.n);
    const at = (q: number) => sizes[Math.min(sizes.length - 1, Math.floor(q * sizes.length))]!;
    const sample = db
      .prepare(
        'SELECT flow_id AS flowId, flow_version AS flowVersion, state_value AS stateValue, snapshot, revision, ' +
          'step_instance AS stepInstance, started_at AS startedAt, updated_at AS updatedAt FROM sessions LIMIT 1',
      )
      .get() as Record<string, unknown>;
    db.close();

    const line = (name: string, r: Throughput) =>
      `${name.padEnd(48)} ${r.updatesPerSecond.toString().padStart(6)} updates/s (${r.seconds.toFixed(2)} s), ` +
      `CPU ${r.cpuMicrosPerUpdate} µs per update (all threads)`;
    console.log(`updates: ${total} from ${people} people (${rounds + 1} each), synchronous=FULL`);
    console.log(line('writer thread (botflow run, default)', threaded));
    console.log(line('one connection (processPending)', oneConnection));
    console.log(`load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`);
    console.log(`inbox: ${JSON.stringify(counts)}; outbox rows: ${outboxRows}`);
    console.log(`snapshot bytes: p50 ${at(0.5)}, p99 ${at(0.99)}`);

    const small = measureRss(dir, 10_000, sample);
    console.log(
      `RSS with ${small.sessions} persisted conversations: ${small.rssMb} MB (JS heap ${small.heapMb} MB)`,
    );
    const large = measureRss(dir, 1_000_000, sample);
    console.log(
      `RSS with ${large.sessions} persisted conversations: ${large.rssMb} MB (JS heap ${large.heapMb} MB)`,
    );

    console.log(
      JSON.stringify({
        bench: 'engine',
        updates_per_s: threaded.updatesPerSecond,
        snapshot_p50_bytes: at(0.5),
        snapshot_p99_bytes: at(0.99),
        rss_10k_mb: small.rssMb,
        rss_1m_mb: large.rssMb,
        one_connection_updates_per_s: oneConnection.updatesPerSecond,
        cpu_us_per_update: threaded.cpuMicrosPerUpdate,
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `--store postgres`: PostgreSQL with one and two engine processes, and SQLite on the same workload. */
async function mainPostgres(): Promise<void> {
  const people = 5_000;
  const rounds = 10;
  const one = await postgresThroughput(import.meta.url, workload(people, rounds), 1);
  const two = await postgresThroughput(import.meta.url, workload(people, rounds), 2);
  const dir = mkdtempSync(join(tmpdir(), 'botflow-engine-bench-'));
  let sqlite: Throughput;
  try {
    sqlite = await throughputWithWriterThread(join(dir, 'threaded.db'), workload(people, rounds));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const total = people * (rounds + 1);
  const perUpdate = (r: { cpu: { engineMicros: number; serverMicros?: number } }) => ({
    engine: Math.round(r.cpu.engineMicros / total),
    server: r.cpu.serverMicros === undefined ? undefined : Math.round(r.cpu.serverMicros / total),
  });
  const cpuText = (r: { cpu: { engineMicros: number; serverMicros?: number } }) => {
    const { engine, server } = perUpdate(r);
    return `CPU per update: engine ${engine} µs${server === undefined ? '' : `, server ${server} µs`}`;
  };
  console.log(`updates: ${total} from ${people} people; PostgreSQL, synchronous_commit on`);
  console.log(
    `PostgreSQL, one engine process      ${one.updatesPerSecond} updates/s (${one.seconds.toFixed(2)} s), ${cpuText(one)}`,
  );
  console.log(
    `PostgreSQL, two engine processes    ${two.updatesPerSecond} updates/s (${two.seconds.toFixed(2)} s), ${cpuText(two)}`,
  );
  console.log(
    `SQLite, writer thread (same load)   ${sqlite.updatesPerSecond} updates/s (${sqlite.seconds.toFixed(2)} s), ` +
      `CPU per update ${sqlite.cpuMicrosPerUpdate} µs (all threads)`,
  );
  console.log(
    `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores (PostgreSQL on the same machine)`,
  );
  console.log(
    JSON.stringify({
      bench: 'engine',
      store: 'postgres',
      updates_per_s: one.updatesPerSecond,
      two_process_updates_per_s: two.updatesPerSecond,
      sqlite_updates_per_s: sqlite.updatesPerSecond,
      cpu_us_per_update: perUpdate(one),
      two_process_cpu_us_per_update: perUpdate(two),
      sqlite_cpu_us_per_update: sqlite.cpuMicrosPerUpdate,
    }),
  );
}

const childIndex = process.argv.indexOf('--rss-child');
const pgChild = process.argv.indexOf('--pg-child');
const storeIndex = process.argv.findIndex((a) => a === '--store' || a.startsWith('--store='));
const store =
  storeIndex < 0 ? 'sqlite' : (process.argv[storeIndex]!.split('=')[1] ?? process.argv[storeIndex + 1]);
if (childIndex >= 0) rssChild(process.argv[childIndex + 1]!, Number(process.argv[childIndex + 2]));
else if (pgChild >= 0)
  await engineChild(process.argv[pgChild + 1]!, process.argv[pgChild + 2]!, [menuFlow], SECRET);
else if (store === 'postgres') await mainPostgres();
else if (store === 'sqlite') await main();
else {
  console.error(`unknown --store ${store}: sqlite (default) or postgres`);
  process.exit(2);
}
