/**
 * The long poll's share of the request budget. Every poll is a request the platform counts in the bot's 30
 * per second, and a poll comes back as soon as one update arrives: at 14 updates a second the polls took
 * 11 to 14 of the dispatcher's 28 starts, the window stayed full, and every answer queued behind them
 * (outbox to platform p50 0.48 s; reply p50 0.55 s before any kill by polling against 0.02 to 0.07 s by
 * webhook, issue 36). So once the window is well used (`POLL_RESERVE` starts left or fewer, polls in flight
 * counted), a poll starts at most every `POLL_SPACING_MS` and fetches everything that arrived meanwhile
 * (up to its limit): 4 to 5 polls a second, the answers keep the rest, and an update waits about 0.1 s
 * for its poll instead of a queue of sends. With a second of sends waiting for room (`POLL_LONG_BACKLOG`),
 * at most once a second: 27 of the 28 starts go to the answers, and the answers a poll brings would wait
 * behind that second of sends anyway. With the window used less, a poll starts at once: a quiet bot's
 * polls cost nothing that answers need.
 *
 * (Until then polls were spaced only while 10 answers or more waited for a nearly full window; below that
 * the window filled with polls and the answers queued a few at a time, never enough to space them.)
 */

import type { BotApi } from '../client/client.ts';
import type { SchedulerMetrics } from '../client/scheduler/metrics.ts';
import { wallNow } from '../store/ports/wall-time.ts';

export const POLL_SPACING_MS = 200;
/** Calls waiting from which a poll starts at most every `POLL_LONG_SPACING_MS`: a second of sends. */
export const POLL_LONG_BACKLOG = 28;
export const POLL_LONG_SPACING_MS = 1000;

type PollApi = Pick<BotApi, 'getUpdates' | 'getSubscriptions'>;

/** Starts of the window that may be taken while answers wait, and the budget still counts as free. */
export const POLL_ROOM = 4;

/**
 * Starts of the window kept for answers: with this few left or fewer, polls are spaced. A poll's batch
 * brings several answers at once; 8 free starts take them without a queue.
 */
export const POLL_RESERVE = 8;

/** The least time between two polls' starts, by the scheduler's window now. */
export function pollSpacingMs(
  metrics: Pick<SchedulerMetrics, 'queued' | 'globalWindowUsed' | 'globalWindowLimit'>,
): number {
  if (answersWaitingForRoom(metrics) >= POLL_LONG_BACKLOG) return POLL_LONG_SPACING_MS;
  return metrics.globalWindowLimit - metrics.globalWindowUsed <= POLL_RESERVE ? POLL_SPACING_MS : 0;
}

/**
 * The calls waiting in the scheduler when they wait for room in the global window (it has fewer than
 * `POLL_ROOM` starts left); 0 when the window has room, whatever waits for its chat's own limit.
 */
export function answersWaitingForRoom(
  metrics: Pick<SchedulerMetrics, 'queued' | 'globalWindowUsed' | 'globalWindowLimit'>,
): number {
  return metrics.globalWindowLimit - metrics.globalWindowUsed < POLL_ROOM ? metrics.queued.total : 0;
}

/** `api` whose `getUpdates` starts no sooner than `spacing()` ms after the previous one (in botflow: `pollSpacingMs`). */
export function spacedPolls(api: PollApi, spacing: () => number): PollApi {
  let lastStart = Number.NEGATIVE_INFINITY;
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
