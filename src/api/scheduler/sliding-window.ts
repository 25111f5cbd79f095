/**
 * Sliding-window logs: a request may start when fewer than `limit` starts fall in the last window.
 * Unlike a token bucket (which lets capacity + rate through in one window), a log never exceeds the
 * limit in ANY window of that length. Times are whole milliseconds, rounded up when recorded, so a
 * recorded start is never earlier than the real one.
 */

/** The log for one scope with a fixed limit (the global scope): a ring of the last `limit` starts. */
export class SlidingWindowLog {
  private readonly stamps: number[];
  private cursor = 0;
  private count = 0;

  /**
   * @param limit starts allowed per window
   * @param windowMs window length including any safety margin
   */
  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`window limit must be a positive integer, got ${limit}`);
    this.stamps = new Array<number>(limit).fill(0);
  }

  /** Earliest time, not before `now`, at which one more start fits in the window. */
  nextFreeAt(now: number): number {
    if (this.count < this.limit) return now;
    // The ring is full, so the cursor points at the oldest of the last `limit` starts.
    return Math.max(now, this.stamps[this.cursor]! + this.windowMs);
  }

  /** Counts a start at `time`. */
  record(time: number): void {
    this.stamps[this.cursor] = Math.ceil(time);
    this.cursor = (this.cursor + 1) % this.limit;
    if (this.count < this.limit) this.count++;
  }

  /** Starts inside the window ending at `now` (for metrics). */
  usedAt(now: number): number {
    let used = 0;
    for (let i = 0; i < this.count; i++) if (this.stamps[i]! > now - this.windowMs) used++;
    return used;
  }
}

/**
 * The compact per-chat log: an exact-size array of the most recent starts, oldest first (at most
 * `limit` numbers). Kept as plain data so that an idle chat costs a few dozen bytes.
 */
export type CompactLog = readonly number[];

/** The log of a chat that has not started anything yet. */
export const EMPTY_LOG: CompactLog = Object.freeze([]) as CompactLog;

/** Earliest time, not before `now`, at which a chat with this log may start one more request. */
export function compactNextFreeAt(log: CompactLog, limit: number, windowMs: number, now: number): number {
  if (log.length < limit) return now;
  return Math.max(now, log[log.length - limit]! + windowMs);
}

/** The log after one more start at `time` (a new exact-size array; the old one is not changed). */
export function compactRecord(log: CompactLog, limit: number, time: number): CompactLog {
  const stamp = Math.ceil(time);
  if (log.length < limit) {
    const next = new Array<number>(log.length + 1);
    for (let i = 0; i < log.length; i++) next[i] = log[i]!;
    next[log.length] = stamp;
    return next;
  }
  const next = new Array<number>(limit);
  for (let i = 1; i < limit; i++) next[i - 1] = log[log.length - limit + i]!;
  next[limit - 1] = stamp;
  return next;
}

/** When the log stops constraining anything: its newest start plus the window. */
export function compactExpiresAt(log: CompactLog, windowMs: number): number {
  return log.length === 0 ? 0 : log[log.length - 1]! + windowMs;
}
