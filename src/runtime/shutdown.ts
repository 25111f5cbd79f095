/**
 * Graceful shutdown: an ordered list of steps (stop intake, finish the current steps, drain sends, close the
 * database) run one after another within one overall deadline, each step bounded by the time that is left,
 * so a step that hangs cannot keep the process alive. Signal handling adds a hard exit timer on top.
 */
import type { Logger } from 'pino';
import { wallNow } from '../store/ports/wall-time.ts';

/** One step of the shutdown. */
export interface ShutdownStep {
  /** Shown in logs: `stop intake`, `drain sends`. */
  name: string;
  /** Does the work; `deadline` is the absolute time (ms since epoch) by which the whole shutdown must end. */
  run(deadline: number): Promise<unknown> | unknown;
  /** Run this step even when the deadline has passed (closing the database must always happen). */
  always?: boolean;
  /** False when the part this step stops never started (a failed start): the step is left out, silently. */
  started?: () => boolean;
}

/** What happened to one step. */
export interface StepOutcome {
  name: string;
  outcome: 'done' | 'failed' | 'timed out' | 'skipped';
  ms: number;
  error?: string;
}

/** Runs `steps` in order before `deadline`; never throws. `clean` is true when every step finished in time. */
export async function runShutdown(
  steps: ShutdownStep[],
  options: { deadline: number; logger?: Pick<Logger, 'info' | 'warn' | 'error'> },
): Promise<{ clean: boolean; steps: StepOutcome[] }> {
  const outcomes: StepOutcome[] = [];
  // A step that timed out spent the time that was left: a timer may fire a millisecond before `Date.now()`
  // reaches the deadline, which must not let the next step start.
  let outOfTime = false;
  for (const step of steps) {
    if (step.started && !step.started()) continue;
    const started = wallNow();
    const left = options.deadline - started;
    if ((left <= 0 || outOfTime) && !step.always) {
      outcomes.push({ name: step.name, outcome: 'skipped', ms: 0 });
      options.logger?.warn({ step: step.name }, `shutdown: skipped "${step.name}": out of time`);
      continue;
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed out'>((resolve) => {
      timer = setTimeout(() => resolve('timed out'), Math.max(left, step.always ? 1000 : 0));
    });
    try {
      const result = await Promise.race([
        Promise.resolve(step.run(options.deadline)).then(() => 'done' as const),
        timedOut,
      ]);
      const outcome: StepOutcome = { name: step.name, outcome: result, ms: wallNow() - started };
      outcomes.push(outcome);
      if (result === 'timed out') {
        outOfTime = true;
        options.logger?.warn(
          { step: step.name, ms: outcome.ms },
          `shutdown: "${step.name}" did not finish in time`,
        );
      } else {
        options.logger?.info({ step: step.name, ms: outcome.ms }, `shutdown: ${step.name}`);
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      outcomes.push({ name: step.name, outcome: 'failed', ms: wallNow() - started, error: message });
      options.logger?.error({ step: step.name, err: error }, `shutdown: "${step.name}" failed: ${message}`);
    } finally {
      clearTimeout(timer);
    }
  }
  return { clean: outcomes.every((o) => o.outcome === 'done'), steps: outcomes };
}

/** How to react to SIGINT / SIGTERM. */
export interface SignalOptions {
  /** The graceful shutdown; its promise settles when everything is closed. */
  shutdown(reason: string): Promise<unknown>;
  /** The process exits with code 1 this long after the first signal, whatever is still running. */
  hardExitMs: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Ends the process (tests pass a fake). */
  exit?: (code: number) => void;
  signals?: NodeJS.Signals[];
}

/**
 * Starts the graceful shutdown on the first SIGINT or SIGTERM, exits at once on a second one, and exits
 * with code 1 when `hardExitMs` passes first. Returns a function that removes the handlers.
 */
export function handleSignals(options: SignalOptions): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  let shuttingDown = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      options.logger.warn({ signal }, `${signal} again: exiting now without finishing the shutdown`);
      exit(130);
      return;
    }
    shuttingDown = true;
    options.logger.info({ signal }, `${signal} received: shutting down (at most ${options.hardExitMs} ms)`);
    let finished = false;
    const hardExit = setTimeout(() => {
      if (finished) {
        options.logger.warn({ signal }, 'shut down, but an open handle kept the process alive: exiting');
        exit(0);
        return;
      }
      options.logger.error(
        { signal, ms: options.hardExitMs },
        `shutdown did not finish within ${options.hardExitMs} ms: exiting anyway; pending work stays in the inbox`,
      );
      exit(1);
    }, options.hardExitMs);
    // Unreferenced: a clean shutdown ends the process at once; the timer only fires if something lingers.
    hardExit.unref();
    options
      .shutdown(signal)
      .catch((error) => options.logger.error({ err: error }, 'shutdown failed'))
      .finally(() => {
        finished = true;
      });
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
