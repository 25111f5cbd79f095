// The PostgreSQL half of `npm run bench -- engine --store postgres`: the same workload through the cluster
// engine on a real server (BOTFLOW_TEST_POSTGRES_URL, default the local one), in one process and in two
// processes sharing the partitions. Intake appends in deliveries of 500 as the webhook's group commit does;
// a run ends when every event is handled (no sender: calls stay in the outbox, as in the SQLite figures).

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createEngine } from '../../src/engine/engine.ts';
import type { FlowDefinition } from '../../src/engine/step/contract.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { postgresStore } from '../../src/store/postgres/engine-store.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';

const ADMIN_URL = process.env.BOTFLOW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A fresh database for one run; `drop` removes it. */
export async function benchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `botflow_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Child mode: one engine process on `url` until its stdin closes. */
export async function engineChild(url: string, member: string, flows: FlowDefinition[], secret: string) {
  const database = await openPostgres({ url });
  const engine = createEngine({ store: postgresStore(database), flows, secret, member });
  await engine.start();
  process.stdout.write('ready\n');
  // The parent measures from here: the CPU of starting up is left out.
  const cpu0 = process.cpuUsage();
  process.stdout.write(`cpu0 ${cpu0.user + cpu0.system}\n`);
  await new Promise<void>((resolve) => process.stdin.on('close', resolve).resume());
  await engine.stop({ waitMs: 1000 });
  await database.close();
  const { user, system } = process.cpuUsage();
  process.stdout.write(`cpu ${user + system}\n`);
}

/** Updates per second through `processes` engine processes (each a child), end to end. */
export async function postgresThroughput(
  benchFile: string,
  payloads: string[],
  processes: number,
): Promise<{
  updatesPerSecond: number;
  seconds: number;
  cpu: { engineMicros: number; serverMicros?: number };
}> {
  const db = await benchDatabase();
  const intakeDb = await openPostgres({ url: db.url, max: 4 });
  const children = Array.from({ length: processes }, (_, i) =>
    spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(benchFile), '--pg-child', db.url, `bench-${i}`],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    ),
  );
  const output = children.map((child) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    return () => text;
  });
  try {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve, reject) => {
            child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
            child.once('exit', (code) => reject(new Error(`engine child exited with ${code}`)));
          }),
      ),
    );
    // Let the processes share the partitions before the clock starts (a few lease ticks).
    if (processes > 1) await new Promise((resolve) => setTimeout(resolve, 4000));
    const inbox = new PgInbox(intakeDb.pool);
    const server0 = await serverCpu(intakeDb.pool, db.url);
    const started = performance.now();
    for (let i = 0; i < payloads.length; i += 500)
      await inbox.append(payloads.slice(i, i + 500).map((p) => updateEntry(p)));
    for (;;) {
      // Whether one event still waits (counting them all, every 50 ms, cost the server as much as a batch).
      const { rows } = await intakeDb.pool.query<{ waiting: boolean }>(
        "SELECT EXISTS (SELECT 1 FROM inbox WHERE status = 'pending') AS waiting",
      );
      if (!rows[0]!.waiting) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const server1 = await serverCpu(intakeDb.pool, db.url);
    const { rows } = await intakeDb.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM inbox WHERE status <> 'done'",
    );
    if (rows[0]!.n > 0) throw new Error(`${rows[0]!.n} events were not handled`);
    for (const child of children) child.stdin!.end();
    await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
    // The engines' CPU from ready to stop (their idle wait before the clock starts is nearly free).
    let engineMicros = 0;
    for (const text of output) {
      const at = (name: string) =>
        Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text())?.[1] ?? Number.NaN);
      engineMicros += at('cpu') - at('cpu0');
    }
    const serverMicros =
      server0 !== undefined && server1 !== undefined ? (server1 - server0) * 1e6 : undefined;
    return {
      updatesPerSecond: Math.round(payloads.length / seconds),
      seconds,
      cpu: { engineMicros, ...(serverMicros !== undefined ? { serverMicros } : {}) },
    };
  } finally {
    for (const child of children) child.stdin!.end();
    await Promise.all(
      children.map((child) =>
        child.exitCode !== null ? undefined : new Promise((resolve) => child.once('exit', resolve)),
      ),
    );
    await intakeDb.close();
    await db.drop();
  }
}

/**
 * CPU seconds used so far by the server processes connected to the run's database, when the server runs on
 * this machine and its processes can be read (/proc); undefined otherwise.
 */
async function serverCpu(pool: pg.Pool, url: string): Promise<number | undefined> {
  const name = new URL(url).pathname.slice(1);
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
    name,
  ]);
  let ticks = 0;
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (clock ticks, 100 a second on Linux)
    } catch {
      return undefined;
    }
  }
  return ticks / 100;
}
