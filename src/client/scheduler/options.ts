/**
 * Scheduler configuration and its defaults.
 */
import { type Clock, systemClock } from '../../store/ports/clock.ts';
import type { RetryOptions } from './retry-policy.ts';
import type { SharedBudget } from './shared-budget.ts';
import type { ApiCaller, Limits, Priority } from './types.ts';

/** Starts a timer; returns a function that cancels it. `keepAlive` false lets the process exit meanwhile. */
export type TimerFactory = (callback: () => void, delayMs: number, keepAlive: boolean) => () => void;

/** The logging calls the scheduler makes (a pino logger fits). */
export interface LoggerLike {
  warn(fields: object, message: string): void;
}

/** Options of `new Scheduler(...)`. */
export interface SchedulerOptions {
  /** The client that performs one call (`BotApi` fits). */
  api: ApiCaller;
  /**
   * Send nothing for this long after creation (ms; default 0). After a restart the platform still counts
   * the calls the previous process made in its last window, which this process cannot know: waiting one
   * window (`botflow run` does) keeps restarts from causing 429s.
   */
  startPausedMs?: number;
  /** Platform limits; defaults to 30 per second overall and 2 per second per chat, with a 5 ms margin. */
  limits?: Limits;
  /** Clock in ms (monotonic) for the windows, pauses and time-to-live; inject a fake one in tests. */
  now?: () => number;
  /**
   * The clock that stamps what the scheduler records in time since the epoch (a dead letter's `at` in
   * `metrics()`); default the system clock. The engine's or a test's virtual clock goes here.
   */
  clock?: Pick<Clock, 'now'>;
  /** Timer factory; inject a fake one in tests. */
  setTimer?: TimerFactory;
  /** Receives a warning for every 429 pause and dead letter. */
  logger?: LoggerLike;
  /** Default time-to-live per priority (ms): how long a job may wait in total before it is dead-lettered. */
  ttlMs?: Partial<Record<Priority, number>>;
  /** Retry budgets (attachment.not.ready per media kind, network errors, 5xx, longest 429 pause). */
  retry?: RetryOptions;
  /** Calls in flight at once (default 30). */
  maxInFlight?: number;
  /** A class that waits behind more urgent ones gets one turn after this many of theirs (default 8). */
  classShareEvery?: number;
  /** Inside a chat, bulk sends get one turn after this many callback answers, replies or edits (default 4). */
  bulkShareEvery?: number;
  /** 429s on this many different chats within one window pause everything (default 3). */
  escalateAfterChats?: number;
  /**
   * Longest time a request may take to reach the platform after dispatch (default 2000 ms). A call
   * counts in the windows until its answer comes, but never longer than this after its dispatch, so
   * one slow answer (a long poll) cannot hold the windows.
   */
  arrivalBoundMs?: number;
  /**
   * Places of the global window that bulk calls leave free for the other classes (default 3 of 30): a
   * person's reply finds room at once while a campaign sends at full rate.
   */
  bulkReserve?: number;
  /** Spread starts evenly (one per window/limit) instead of spending a window in one burst (default true). */
  pacing?: boolean;
  /**
   * A budget shared with other processes of the same bot (shared-budget.ts): while it applies, every call
   * also waits for a start in it, and one that finds none within its time-to-live is given up as `expired`.
   */
  sharedBudget?: SharedBudget;
}

/** What a scheduler keeps to unless told otherwise: the platform's 30 calls/s and 2/s per chat, over 1 s windows, 5 % under. */
export const DEFAULT_SEND_LIMITS: Required<Limits> = {
  global: 30,
  perChat: 2,
  windowMs: 1000,
  safetyMargin: 5,
};

export const DEFAULT_TTL_MS: Record<Priority, number> = {
  intake: 60_000,
  reply: 10 * 60_000,
  edit: 10 * 60_000,
  callback: 60_000,
  typing: 60_000,
  readback: 10 * 60_000,
  bulk: 60 * 60_000,
};

const realTimer: TimerFactory = (callback, delayMs, keepAlive) => {
  const handle = setTimeout(callback, delayMs);
  if (!keepAlive) handle.unref();
  return () => clearTimeout(handle);
};

function positiveInt(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`Scheduler: ${what} must be a positive integer, got ${value}`);
  return value;
}

/** Fills in defaults and checks the numbers (a clear error instead of a silent misbehaviour). */
export function resolveOptions(options: SchedulerOptions) {
  const limits = { ...DEFAULT_SEND_LIMITS, ...options.limits };
  positiveInt(limits.global, 'limits.global');
  positiveInt(limits.perChat, 'limits.perChat');
  if (!(limits.windowMs > 0))
    throw new RangeError(`Scheduler: limits.windowMs must be positive, got ${limits.windowMs}`);
  if (!(limits.safetyMargin >= 0)) {
    throw new RangeError(`Scheduler: limits.safetyMargin (ms) must be 0 or more, got ${limits.safetyMargin}`);
  }
  return {
    limits,
    now: options.now ?? (() => performance.now()),
    clock: options.clock ?? systemClock,
    setTimer: options.setTimer ?? realTimer,
    ttlMs: { ...DEFAULT_TTL_MS, ...options.ttlMs },
    retry: options.retry ?? {},
    maxInFlight: positiveInt(options.maxInFlight ?? 30, 'maxInFlight'),
    classShareEvery: positiveInt(options.classShareEvery ?? 8, 'classShareEvery'),
    bulkShareEvery: positiveInt(options.bulkShareEvery ?? 4, 'bulkShareEvery'),
    escalateAfterChats: positiveInt(options.escalateAfterChats ?? 3, 'escalateAfterChats'),
    arrivalBoundMs: positiveInt(options.arrivalBoundMs ?? 2000, 'arrivalBoundMs'),
    pacing: options.pacing ?? true,
    bulkReserve: Math.max(0, Math.floor(options.bulkReserve ?? 0)),
    sharedBudget: options.sharedBudget,
  };
}
