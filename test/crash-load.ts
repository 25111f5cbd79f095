/**
 * Shared by the SIGKILL tests and the intake benchmark: start a receiver in a child process (`READY <port>`
 * on stdout), then post updates to its webhook, some delivered twice as a platform retry would, until the
 * child is killed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Pool } from 'undici';

/** Starts `node --import tsx <fixture> ...args` and resolves once it prints `READY <port>`. */
export function startChild(fixture: string, args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /READY (\d+)/.exec(out);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.once('exit', (code) => reject(new Error(`child exited early with ${code}: ${out}`)));
  });
}

/** How to load a receiver until it is killed. */
export interface KillLoad {
  port: number;
  child: ChildProcess;
  secret: string;
  /** The update body for index `i`, and the id it is acknowledged under. */
  update(i: number): { body: string; id: string };
  /** Requests in flight. */
  connections: number;
  /** Every `duplicateEvery`-th delivery repeats an earlier index. */
  duplicateEvery: number;
  /** SIGKILL once this many distinct updates were acknowledged. */
  killAfterAcks: number;
  /** Picks the repeated indexes: the seeded generator of `crashSeed`, so a failing run can be replayed. */
  random: () => number;
}

/**
 * The random choices of a crash test (kill points, repeated deliveries), from a seed it prints: set
 * BOTFLOW_CRASH_SEED to that number to run the same choices again.
 */
export function crashSeed(test: string): { seed: number; random: () => number } {
  const given = Number(process.env.BOTFLOW_CRASH_SEED);
  const seed = Number.isInteger(given) && given > 0 ? given : Math.floor(Math.random() * 2 ** 31) + 1;
  console.info(`${test}: seed ${seed} (BOTFLOW_CRASH_SEED=${seed} repeats this run)`);
  // mulberry32: small, fast and good enough to spread kill points.
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { seed, random };
}

/** Posts updates until the child dies (killing it after `killAfterAcks`); returns the ids acknowledged with 200. */
export async function loadUntilKilled(load: KillLoad): Promise<Set<string>> {
  const pool = new Pool(`http://127.0.0.1:${load.port}`, { connections: load.connections });
  const acked = new Set<string>();
  let alive = true;
  let next = 0;
  load.child.once('exit', () => {
    alive = false;
  });
  const worker = async () => {
    while (alive) {
      const i =
        next % load.duplicateEvery === load.duplicateEvery - 1 && next > 10
          ? Math.floor(load.random() * next)
          : next;
      next++;
      const { body, id } = load.update(i);
      try {
        const response = await pool.request({
          method: 'POST',
          path: '/webhook',
          headers: { 'content-type': 'application/json', 'x-svc-bot-api-secret': load.secret },
          body,
        });
        await response.body.dump();
        if (response.statusCode === 200) acked.add(id);
        if (acked.size >= load.killAfterAcks && alive) load.child.kill('SIGKILL');
      } catch {
        // The child died with this request in flight: not acknowledged, so no promise was made.
      }
    }
  };
  await Promise.all(Array.from({ length: load.connections }, worker));
  await pool.destroy();
  return acked;
}
