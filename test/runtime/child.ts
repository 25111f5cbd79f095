/**
 * Runs `botflow run` as a real child process (what `npm start` does) and lets a test wait for its output,
 * signal it and collect its exit code.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/botflow.js', import.meta.url));

/** A running `botflow` process. */
export interface BotflowProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stderr/stdout text matching `pattern`; rejects on exit or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (signal deaths give 128 + signal number). */
  exited: Promise<number>;
}

/** Starts `node bin/botflow.js <args>` in `cwd` with exactly `env` (plus PATH and HOME). */
export function runBotflow(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): BotflowProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', (chunk) => {
    out += chunk;
    notify();
  });
  child.stderr!.on('data', (chunk) => {
    err += chunk;
    notify();
  });
  const exited = new Promise<number>((resolve) => {
    child.on('exit', (code, signal) => {
      notify();
      resolve(code ?? (signal === 'SIGKILL' ? 137 : 128));
    });
  });
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    notify();
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = err.match(pattern) ?? out.match(pattern);
          if (match) return finish(() => resolve(match));
          if (hasExited)
            finish(() => reject(new Error(`botflow exited before ${pattern}:\n${err}\n${out.slice(-3000)}`)));
        };
        const timer = setTimeout(
          () =>
            finish(() =>
              reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${err}\n${out.slice(-3000)}`)),
            ),
          timeoutMs,
        );
        const finish = (then: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          then();
        };
        listeners.add(check);
        check();
      });
    },
  };
}
