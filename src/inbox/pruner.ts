/**
 * Periodic inbox pruning: settled rows older than the retention are deleted, in short chunks. The
 * retention doubles as the de-duplication window, so keep it longer than the platform's redelivery horizon.
 */
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { InboxStore } from '../store/inbox.ts';
import { systemClock } from '../store/ports/clock.ts';

/** Default retention of settled inbox rows: 72 hours (the platform retries failed deliveries for up to 8 hours). */
export const DEFAULT_INBOX_RETENTION_MS = 72 * 3600_000;

/** Options of `startInboxPruner`. */
export interface PrunerOptions {
  db: Database.Database;
  /** How long settled rows are kept (default 72 h). */
  retentionMs?: number;
  /** How often to prune (default every 10 minutes; also once at start). */
  intervalMs?: number;
  logger?: Pick<Logger, 'info' | 'error'>;
  /** The clock, for tests. */
  now?: () => number;
}

/** Prunes now and then every `intervalMs`, without keeping the process alive; returns the stop function. */
export function startInboxPruner(options: PrunerOptions): () => void {
  const inbox = new InboxStore(options.db);
  const retentionMs = options.retentionMs ?? DEFAULT_INBOX_RETENTION_MS;
  const now = options.now ?? systemClock.now;
  const prune = () => {
    try {
      const deleted = inbox.prune(retentionMs, now());
      if (deleted > 0) options.logger?.info({ deleted, retentionMs }, 'inbox pruned');
    } catch (error) {
      options.logger?.error({ err: error }, 'inbox pruning failed; will try again');
    }
  };
  prune();
  const timer = setInterval(prune, options.intervalMs ?? 10 * 60_000);
  timer.unref();
  return () => clearInterval(timer);
}
