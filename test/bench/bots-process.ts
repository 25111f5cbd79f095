/**
 * What the bots benchmark's parts share: a deployment child process (bots-child.ts) to start, ask and stop;
 * a flows folder whose one flow answers every message with one message; the per-bot schemas to drop.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { botSchema } from '../../src/runtime/config-bots.ts';
import type { ChildSpec } from './bots-child.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const PG_URL = process.env.BOTFLOW_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Every message is answered with one message: the flow goes back and forth between two questions. */
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

export function chatFlows(dir: string): string {
  const flows = join(dir, 'flows');
  mkdirSync(flows, { recursive: true });
  writeFileSync(join(flows, 'chat.flow.yaml'), CHAT);
  return flows;
}

type Event = Record<string, unknown> & { event: string };

export interface DeploymentChild {
  child: ChildProcess;
  /** The next line of `event` (rejects when the process ends first or after `timeoutMs`). */
  next(event: string, timeoutMs?: number): Promise<Event>;
  stats(): Promise<{ rss: number; cpu_us: number }>;
  stop(): Promise<void>;
}

/** Starts bots-child.ts with `spec` and the bots' tokens (env `BB_T_<i>`). */
export function startChild(spec: ChildSpec, tokens: string[], tag: string): DeploymentChild {
  const specFile = join(spec.dir, `spec-${tag}.json`);
  writeFileSync(specFile, JSON.stringify(spec));
  const env: NodeJS.ProcessEnv = { ...process.env };
  tokens.forEach((token, i) => {
    env[`BB_T_${i}`] = token;
  });
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--expose-gc', join(here, 'bots-child.ts'), specFile],
    { env, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  // BOTFLOW_BENCH_LOGS=dir keeps each process's log lines (warn and up) in <dir>/bots-<tag>.log.
  const logs = process.env.BOTFLOW_BENCH_LOGS;
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
    if (logs) appendFileSync(join(logs, `bots-${tag}.log`), chunk);
  });
  const events: Event[] = [];
  const waiters: (() => void)[] = [];
  let ended = false;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    events.push(JSON.parse(line) as Event);
    for (const w of waiters.splice(0)) w();
  });
  child.on('exit', () => {
    ended = true;
    for (const w of waiters.splice(0)) w();
  });
  const next = async (event: string, timeoutMs = 600_000): Promise<Event> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = events.findIndex((e) => e.event === event);
      if (at >= 0) return events.splice(at, 1)[0]!;
      if (ended) throw new Error(`the deployment process ${tag} ended: ${stderr.slice(-1500)}`);
      if (Date.now() >= deadline) throw new Error(`no ${event} from ${tag} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(1000, deadline - Date.now()));
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return {
    child,
    next,
    async stats() {
      child.stdin!.write('stats\n');
      return (await next('stats', 30_000)) as unknown as { rss: number; cpu_us: number };
    },
    async stop() {
      if (ended) return;
      child.stdin!.write('stop\n');
      await next('stopped', 60_000).catch(() => child.kill('SIGKILL'));
    },
  };
}

/**
 * Each bot opens its own pool and LISTEN connection today (~7 connections a bot and process): throws when
 * `bots` × `processes` of them would not fit in the server's free connections (other sessions share the
 * server), unless BOTFLOW_BENCH_FORCE is set.
 */
export async function checkConnections(bots: number, processes: number): Promise<void> {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
  try {
    const max = Number((await pool.query('SHOW max_connections')).rows[0].max_connections);
    const used = Number((await pool.query('SELECT count(*) AS n FROM pg_stat_activity')).rows[0].n);
    const need = bots * processes * 7;
    if (need > max - used && !process.env.BOTFLOW_BENCH_FORCE)
      throw new Error(
        `${bots} bot(s) in ${processes} process(es) need about ${need} PostgreSQL connections and ${max - used} of ` +
          `${max} are free: use fewer bots (or BOTFLOW_BENCH_FORCE=1 to run anyway)`,
      );
  } finally {
    await pool.end();
  }
}

/** Drops the bots' schemas (and anything in them). */
export async function dropSchemas(names: string[]): Promise<void> {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
  try {
    for (const name of names) await pool.query(`DROP SCHEMA IF EXISTS "${botSchema(name)}" CASCADE`);
  } finally {
    await pool.end();
  }
}

export const pct = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
};

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
