// Profiling aid for the PostgreSQL engine path (not a benchmark run by `npm run bench`):
//   node --import tsx test/bench/pg-profile.ts [people] [--preload]
// Runs the engine bench's workload through one in-process engine on a fresh database (`--preload`: the whole
// inbox appended before the engine starts) and prints the CPU the server's backends and this process used,
// then, per SQL statement, how many round trips were made and the time they took as awaited (which includes
// the time the event loop was busy planning). DUMP_BATCH=<file>: writes the 100th batch's parameters there.
import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { createEngine } from '../../src/engine/engine.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { postgresStore } from '../../src/store/postgres/engine-store.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';
import { benchDatabase } from './engine-postgres.ts';
import { menuFlow, SECRET, workload } from './engine-workload.ts';

let applies = 0;
const stats = new Map<string, { n: number; ms: number; rows: number }>();
const original = pg.Pool.prototype.query;
// biome-ignore lint/suspicious/noExplicitAny: instrumentation
(pg.Pool.prototype as any).query = function (this: pg.Pool, ...args: any[]) {
  const text: string = typeof args[0] === 'string' ? args[0] : args[0].text;
  let key = text.replace(/\s+/g, ' ').slice(0, 70);
  if (key.includes('botflow_apply_batch')) key = `${key.slice(0, 40)} careful=${args[1][3]}`;
  if (process.env.DUMP_BATCH && key.includes('botflow_apply_batch') && ++applies === 100)
    writeFileSync(process.env.DUMP_BATCH, JSON.stringify(args[1]));
  const t0 = performance.now();
  // biome-ignore lint/suspicious/noExplicitAny: instrumentation
  const p = (original as any).apply(this, args) as Promise<pg.QueryResult>;
  if (p && typeof p.then === 'function')
    p.then(
      (r) => {
        const s = stats.get(key) ?? { n: 0, ms: 0, rows: 0 };
        s.n++;
        s.ms += performance.now() - t0;
        s.rows += r.rowCount ?? 0;
        stats.set(key, s);
      },
      () => {},
    );
  return p;
};

/** CPU seconds used so far by the server processes connected to this run's database (a local server). */
async function serverCpu(pool: pg.Pool, url: string): Promise<number> {
  const name = new URL(url).pathname.slice(1);
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
    name,
  ]);
  let ticks = 0;
  for (const { pid } of rows) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {}
  }
  return ticks / 100;
}

const people = Number(process.argv[2] ?? 5000);
const preload = process.argv.includes('--preload');
const payloads = workload(people, 10);
const db = await benchDatabase();
const database = await openPostgres({ url: db.url });
const intake = new PgInbox(database.pool);
// PROFILE_SQL="DROP INDEX …": a change to try on the fresh database before the run.
if (process.env.PROFILE_SQL) await database.pool.query(process.env.PROFILE_SQL);
try {
  if (preload) {
    const before = await serverCpu(database.pool, db.url);
    for (let i = 0; i < payloads.length; i += 500)
      await intake.append(payloads.slice(i, i + 500).map((p) => updateEntry(p)));
    const used = (await serverCpu(database.pool, db.url)) - before;
    console.log(
      `intake (preload): server CPU ${used.toFixed(2)} s, ${Math.round((used * 1e6) / payloads.length)} µs per update`,
    );
  }
  stats.clear();
  const engine = createEngine({
    store: postgresStore(database),
    flows: [menuFlow],
    secret: SECRET,
    member: 'p',
  });
  await engine.start();
  const cpu0 = process.cpuUsage();
  const server0 = await serverCpu(database.pool, db.url);
  const t0 = performance.now();
  if (!preload)
    for (let i = 0; i < payloads.length; i += 500)
      await intake.append(payloads.slice(i, i + 500).map((p) => updateEntry(p)));
  for (;;) {
    const { rows } = await database.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM (SELECT 1 FROM inbox WHERE status = 'pending' LIMIT 1) x",
    );
    if (rows[0]!.n === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const s = (performance.now() - t0) / 1000;
  const backendCpu = (await serverCpu(database.pool, db.url)) - server0;
  const cpu = process.cpuUsage(cpu0);
  await engine.stop({ waitMs: 1000 });
  console.log(`engine: server CPU ${Math.round((backendCpu * 1e6) / payloads.length)} µs per update`);
  console.log(
    `${payloads.length} updates in ${s.toFixed(2)} s = ${Math.round(payloads.length / s)}/s; server CPU ${backendCpu.toFixed(2)} s; node CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s`,
  );
  for (const [k, v] of [...stats].sort((a, b) => b[1].ms - a[1].ms))
    console.log(
      `${String(v.n).padStart(6)} ${v.ms.toFixed(0).padStart(7)} ms ${(v.ms / v.n).toFixed(2).padStart(7)} ms/q ${String(v.rows).padStart(7)} rows  ${k}`,
    );
} finally {
  await database.close();
  await db.drop();
}
