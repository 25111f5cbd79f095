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
          ? Math.floor(Math.random() * next)
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
