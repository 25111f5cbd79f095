/**
 * The bot's rate budget shared by several processes: the platform's limit is per bot, so among several processes
 * the dispatcher's scheduler keeps to the limit less a reserve, and every call made outside the dispatcher
 * (the self-check at start, the webhook subscription, each task's "typing…", a group's rights) takes a start
 * in this reserve, which all processes share through one row of the database (`RowUpdate`, which the store
 * gives: on PostgreSQL the `kv` table's row under its lock): a sliding-window log of the last starts, read
 * and written atomically, timed by the database's clock (one clock for all).
 * A start counts from its grant until its answer (at most `arrivalBoundMs` after the grant if no answer
 * comes, e.g. the process died): the platform counts a request when it arrives, somewhere in between.
 */
import { randomUUID } from 'node:crypto';
import { wallNow } from '../../store/ports/wall-time.ts';
import { BudgetExhausted, type BudgetGrant, grantFrom, type SharedBudget } from './shared-budget.ts';

/**
 * One atomic read-modify-write of a stored row: `change` gets the row's value (`initial` when there is
 * none) and the database's time in ms, and answers the new value and a result.
 */
export type RowUpdate = <T>(
  key: string,
  initial: string,
  change: (value: string, now: number) => { value: string; result: T },
) => Promise<T>;

const KEY = 'cluster.rate_budget';
type Stamp = { id: string; at: number };

export interface RowBudgetOptions {
  /** Starts per window shared by the processes' own calls (the dispatcher's reserve). */
  limit: number;
  /** Whether this process's calls go through it now (not while it is the dispatcher). */
  applies: () => boolean;
  /** Window length with the platform's margin (default 1005 ms). */
  windowMs?: number;
  /** Longest time a request may take to reach the platform after its grant (default 2000 ms). */
  arrivalBoundMs?: number;
}

/** The reserve shared through the row that `updateRow` reads and writes. */
export function rowBudget(updateRow: RowUpdate, o: RowBudgetOptions): SharedBudget {
  const settings = { limit: o.limit, windowMs: o.windowMs ?? 1005, arrivalBoundMs: o.arrivalBoundMs ?? 2000 };
  let closed = false;
  const waiters = new Set<() => void>();

  /** One read-modify-write of the log under the row's lock; `change` gets the log and the database's time. */
  const update = <T>(change: (log: Stamp[], now: number) => { log: Stamp[]; result: T }): Promise<T> =>
    updateRow(KEY, '[]', (value, now) => {
      const { log, result } = change(JSON.parse(value) as Stamp[], now);
      return { value: JSON.stringify(log), result };
    });

  const settle = (id: string) =>
    update((log, now) => {
      const stamp = log.find((s) => s.id === id);
      if (stamp) stamp.at = Math.min(stamp.at, now);
      return { log, result: undefined };
    }).catch(() => {}); // the provisional bound stands: later starts wait a little longer, nothing more

  return {
    applies: o.applies,
    close() {
      closed = true;
      for (const wake of waiters) wake();
    },
    async acquire(maxWaitMs, signal): Promise<BudgetGrant> {
      const until = wallNow() + maxWaitMs;
      for (;;) {
        signal?.throwIfAborted();
        if (closed) throw new BudgetExhausted('the process is stopping');
        const id = randomUUID();
        const step = await update((log, now) => {
          const next = grantFrom(log, now, { ...settings, id });
          return { log: next.log, result: next };
        });
        if (step.granted) return { settle: () => void settle(id) };
        const left = until - wallNow();
        if (left <= 0)
          throw new BudgetExhausted(`none free within ${maxWaitMs} ms among the processes' ${o.limit}/s`);
        // The log's oldest start may still be provisional (its answer lowers it soon): ask again within
        // 250 ms at most, or when the log says the next start is free; another process may take it first.
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            waiters.delete(wake);
            signal?.removeEventListener('abort', wake);
            resolve();
          };
          const timer = setTimeout(wake, Math.min(step.waitMs, 250 + Math.random() * 50, left));
          waiters.add(wake);
          signal?.addEventListener('abort', wake, { once: true });
        });
      }
    },
  };
}
