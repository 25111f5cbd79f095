/**
 * A rate budget shared by several processes of one bot (the platform's limits are per bot, not per
 * process). A scheduler given one asks it for a start before each call while `applies()` says so (in
 * botflow: while its process is not the dispatcher, whose own scheduler keeps to the rest of the bot's
 * limit); the call is then made and `settle` told when its answer came. A call that finds no room before
 * its time-to-live ends is given up as `expired`: nothing waits longer than it is worth.
 *
 * The PostgreSQL implementation is runtime/cluster-budget.ts; `localSharedBudget` below is the same
 * contract in memory, for tests and for processes that share nothing.
 */
import { systemClock } from '../../store/ports/clock.ts';

/** One start granted by the budget: call `settle` once the call's answer (or failure) came. */
export interface BudgetGrant {
  settle(): void;
}

/** The deployment's shared budget of starts. */
export interface SharedBudget {
  /** Whether calls go through it now (false: the scheduler's own windows are enough). */
  applies(): boolean;
  /**
   * Waits for a start, at most `maxWaitMs`; rejects with `BudgetExhausted` when none came by then (or the
   * budget was closed), and with the signal's reason when it fires.
   */
  acquire(maxWaitMs: number, signal?: AbortSignal): Promise<BudgetGrant>;
  /** Rejects every waiting `acquire`; later ones reject at once. */
  close(): void;
}

/** No start in the shared budget before the call's time-to-live ran out. */
export class BudgetExhausted extends Error {
  override readonly name = 'BudgetExhausted';
}

/** Runs `call` inside one start of `budget` (or directly when the budget does not apply). */
export async function withinBudget<T>(
  budget: SharedBudget | undefined,
  maxWaitMs: number,
  call: () => Promise<T>,
): Promise<T> {
  if (!budget?.applies()) return call();
  const grant = await budget.acquire(maxWaitMs);
  try {
    return await call();
  } finally {
    grant.settle();
  }
}

/**
 * The sliding-window log the budgets keep: a start is granted while fewer than `limit` starts have an
 * arrival bound inside the last window. A start's bound is provisional (grant + `arrivalBoundMs`) until its
 * answer lowers it to the answer's time: the platform counts a request when it arrives, somewhere between
 * the two. Returns the new log and either the granted stamp's id or how long to wait.
 */
export function grantFrom(
  log: readonly { id: string; at: number }[],
  now: number,
  o: { limit: number; windowMs: number; arrivalBoundMs: number; id: string },
): { log: { id: string; at: number }[]; granted: boolean; waitMs: number } {
  const live = log.filter((s) => s.at > now - o.windowMs);
  if (live.length < o.limit)
    return { log: [...live, { id: o.id, at: now + o.arrivalBoundMs }], granted: true, waitMs: 0 };
  const oldest = Math.min(...live.map((s) => s.at));
  return { log: live, granted: false, waitMs: Math.max(1, oldest + o.windowMs - now) };
}

/** A budget in this process's memory (the contract of the shared one, for tests). */
export function localSharedBudget(o: {
  limit: number;
  windowMs?: number;
  arrivalBoundMs?: number;
  applies?: () => boolean;
  now?: () => number;
}): SharedBudget {
  const now = o.now ?? systemClock.now;
  let log: { id: string; at: number }[] = [];
  let next = 0;
  let closed = false;
  const waiters = new Set<() => void>();
  const settings = { limit: o.limit, windowMs: o.windowMs ?? 1005, arrivalBoundMs: o.arrivalBoundMs ?? 2000 };
  return {
    applies: o.applies ?? (() => true),
    close() {
      closed = true;
      for (const wake of waiters) wake();
    },
    async acquire(maxWaitMs, signal) {
      const until = now() + maxWaitMs;
      for (;;) {
        signal?.throwIfAborted();
        if (closed) throw new BudgetExhausted('the shared budget was closed');
        const id = String(next++);
        const step = grantFrom(log, now(), { ...settings, id });
        log = step.log;
        if (step.granted)
          return {
            settle() {
              const stamp = log.find((s) => s.id === id);
              if (stamp) stamp.at = Math.min(stamp.at, now());
            },
          };
        if (now() + step.waitMs > until)
          throw new BudgetExhausted(`no start in the shared budget within ${maxWaitMs} ms`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            waiters.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, step.waitMs);
          waiters.add(wake);
          signal?.addEventListener('abort', wake, { once: true });
        });
      }
    },
  };
}
