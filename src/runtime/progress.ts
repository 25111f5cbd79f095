/**
 * A progress line for long work: while something is left to do (a backlog of updates from the last run,
 * sends draining at shutdown), one log line every few seconds with how much is left, the rate and an
 * estimate of the time left; one final line when it is done. Silent for work that finishes quickly.
 */
import type { Logger } from 'pino';
import { wallNow } from '../store/ports/wall-time.ts';

/** Options of `trackProgress`. */
export interface ProgressOptions {
  /** What is being done, e.g. `processing updates left from the last run`. */
  label: string;
  /** How much is left now (called once per interval; a promise on PostgreSQL). */
  remaining(): number | Promise<number>;
  /** How much was left at the start. */
  startLeft: number;
  logger: Pick<Logger, 'info'>;
  /** Between two lines, in ms (default 5000). */
  intervalMs?: number;
}

/** Starts reporting; the returned function stops it (idempotent). Reports nothing when nothing is left. */
export function trackProgress(options: ProgressOptions): () => void {
  const { startLeft } = options;
  if (startLeft === 0) return () => {};
  const started = wallNow();
  options.logger.info({ remaining: startLeft }, `${options.label}: ${startLeft} to go`);
  let last = { at: started, left: startLeft };
  const timer = setInterval(async () => {
    const left = await Promise.resolve()
      .then(() => options.remaining())
      .catch(() => undefined);
    if (left === undefined) return;
    const now = wallNow();
    if (left === 0) {
      stop();
      options.logger.info(
        { total: startLeft, ms: now - started },
        `${options.label}: done (${startLeft} in ${formatDuration(now - started)})`,
      );
      return;
    }
    const rate = ((last.left - left) * 1000) / Math.max(1, now - last.at);
    const eta = rate > 0 ? `, about ${formatDuration((left / rate) * 1000)} left` : '';
    options.logger.info(
      { remaining: left, perSecond: Math.round(rate) },
      `${options.label}: ${left} to go (${Math.round(rate)}/s${eta})`,
    );
    last = { at: now, left };
  }, options.intervalMs ?? 5000);
  timer.unref();
  const stop = () => clearInterval(timer);
  return stop;
}

/** `850 ms`, `12 s`, `3 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
