/**
 * The long poll's share of the request budget. Every poll is a request the platform counts in the bot's 30
 * per second, and under load a poll comes back with every update: at 12 updates a second, 12 polls a second
 * left the answers 16 of the 28 starts, and after a failover the backlog drained at a few a second (reply
 * p50 17 s by polling against 1 to 2 s by webhook in the dispatcher-kills e2e). So while answers wait for
 * room in the budget (`answersWaitingForRoom`: `POLL_BACKLOG` calls waiting or more, the window all but
 * full), a poll starts at most every `spacingMs` (it then fetches everything that arrived meanwhile, up to
 * its limit); with a second of sends or more waiting (`POLL_LONG_BACKLOG`), at most once a second: 27 of
 * the dispatcher's 28 starts go to the answers, and the answers a poll brings would wait behind that second
 * of sends anyway. Otherwise a poll starts at once: calls that wait only for their own chat's 2 a second
 * (a person's burst) leave the budget free, and spacing polls for them made every reply by polling wait
 * (reply p50 0.56 s before any kill against 0.02 s by webhook, issue 36).
 */

import type { BotApi } from '../client/client.ts';
import type { SchedulerMetrics } from '../client/scheduler/metrics.ts';
import { wallNow } from '../store/ports/wall-time.ts';

export const POLL_SPACING_MS = 250;
/** Calls waiting in the scheduler from which the budget counts as short (a steady load keeps fewer). */
export const POLL_BACKLOG = 10;
/** Calls waiting from which a poll starts at most every `POLL_LONG_SPACING_MS`: a second of sends. */
export const POLL_LONG_BACKLOG = 28;
export const POLL_LONG_SPACING_MS = 1000;

type PollApi = Pick<BotApi, 'getUpdates' | 'getSubscriptions'>;

/** Starts of the window that may be taken while answers wait, and the budget still counts as free. */
export const POLL_ROOM = 4;

/**
 * The calls waiting in the scheduler when they wait for room in the global window (it has fewer than
 * `POLL_ROOM` starts left); 0 when the window has room, whatever waits for its chat's own limit.
 */
export function answersWaitingForRoom(
  metrics: Pick<SchedulerMetrics, 'queued' | 'globalWindowUsed' | 'globalWindowLimit'>,
): number {
  return metrics.globalWindowLimit - metrics.globalWindowUsed < POLL_ROOM ? metrics.queued.total : 0;
}

/** `api` whose `getUpdates` waits for its turn while `queued()` says answers wait (in botflow: `answersWaitingForRoom`). */
export function spacedPolls(
  api: PollApi,
  queued: () => number,
  spacingMs = POLL_SPACING_MS,
  longSpacingMs = POLL_LONG_SPACING_MS,
): PollApi {
  let lastStart = Number.NEGATIVE_INFINITY;
  const spacing = () => {
    const waiting = queued();
    return waiting >= POLL_LONG_BACKLOG ? longSpacingMs : waiting >= POLL_BACKLOG ? spacingMs : 0;
  };
  return {
    getSubscriptions: (options) => api.getSubscriptions(options),
    async getUpdates(args, options) {
      const wait = lastStart + spacing() - wallNow();
      if (wait > 0) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(done, wait);
          options?.signal?.addEventListener('abort', done, { once: true });
        });
        options?.signal?.throwIfAborted();
      }
      lastStart = wallNow();
      return api.getUpdates(args, options);
    },
  };
}
