/**
 * The long poll's share of the request budget. Every poll is a request the platform counts in the bot's 30
 * per second, and under load a poll comes back with every update: at 12 updates a second, 12 polls a second
 * left the answers 16 of the 28 starts, and after a failover the backlog drained at a few a second (reply
 * p50 17 s by polling against 1 to 2 s by webhook in the dispatcher-kills e2e). While answers pile up in the
 * scheduler (`POLL_BACKLOG` calls waiting or more), a poll starts at most every `spacingMs` (it then fetches
 * everything that arrived meanwhile, up to its limit); otherwise it starts at once, as before. One poll a
 * second leaves 27 of the dispatcher's 28 starts to the answers (four a second, as before issue 36, left 24:
 * the backlog drained at 20 a second); the answers it brings wait behind the backlog anyway.
 */
import type { BotApi } from '../client/client.ts';

export const POLL_SPACING_MS = 1000;
/** Calls waiting in the scheduler from which the budget counts as short (a steady load keeps fewer). */
export const POLL_BACKLOG = 10;

type PollApi = Pick<BotApi, 'getUpdates' | 'getSubscriptions'>;

/** `api` whose `getUpdates` waits for its turn while `backlog()` says answers are waiting. */
export function spacedPolls(api: PollApi, backlog: () => boolean, spacingMs = POLL_SPACING_MS): PollApi {
  let lastStart = Number.NEGATIVE_INFINITY;
  return {
    getSubscriptions: (options) => api.getSubscriptions(options),
    async getUpdates(args, options) {
      const wait = lastStart + spacingMs - Date.now();
      if (wait > 0 && backlog()) {
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
      lastStart = Date.now();
      return api.getUpdates(args, options);
    },
  };
}
