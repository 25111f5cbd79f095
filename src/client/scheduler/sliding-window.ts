/**
 * Sliding-window logs: a request may start when fewer than `limit` requests fall in the last window.
 * Unlike a token bucket (which lets capacity + rate through in one window), a log never exceeds the
 * limit in ANY window of that length. Times are whole milliseconds, rounded up when recorded, so a
 * recorded start is never earlier than the real one.
 */

/**
 * The log for one scope with a fixed limit (the global scope): a ring of the last `limit` starts in
 * dispatch order. The platform counts a request when it ARRIVES, which is somewhere between dispatch
 * and the answer (connection queues can delay it by hundreds of ms). So each slot holds, while the
 * call is in flight, a provisional bound (dispatch + the longest plausible arrival delay), and is
 * lowered to the answer time when the answer comes. Request n may start once every request up to
 * n - limit is known to have arrived at least one window ago: then no window of arrivals can hold
 * more than `limit`, whatever the network does to the order.
 */
export class SlidingWindowLog {
  private readonly stamps: number[];
  private cursor = 0;
  private count = 0;
  /** Starts counted so far (a start's ticket is the count before it). */
  private started = 0;
  /** Latest arrival bound among slots already overwritten (they still constrain the order argument). */
  private evictedMax = Number.NEGATIVE_INFINITY;

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
    // The ring is full, so the cursor points at the start `limit` places back.
    return Math.max(now, Math.max(this.stamps[this.cursor]!, this.evictedMax) + this.windowMs);
  }

  /**
   * Counts a start whose arrival is bounded by `arrivedBy`; returns its ticket for `settle` (the how-manieth
   * start it was).
   */
  start(arrivedBy: number): number {
    const slot = this.cursor;
    if (this.count === this.limit) this.evictedMax = Math.max(this.evictedMax, this.stamps[slot]!);
    this.stamps[slot] = Math.ceil(arrivedBy);
    this.cursor = (this.cursor + 1) % this.limit;
    if (this.count < this.limit) this.count++;
    return this.started++;
  }

  /**
   * The answer to the start with `ticket` came at `at`: it arrived by then. An answer that comes after
   * `limit` later starts took its slot changes nothing: the slot holds a later start now, whose bound it
   * must not lower, and its own provisional bound already counts among the evicted ones.
   */
  settle(ticket: number, at: number): void {
    if (ticket < this.started - this.limit) return;
    const slot = ticket % this.limit;
    this.stamps[slot] = Math.min(this.stamps[slot]!, Math.ceil(at));
  }

  /** Starts whose arrival bound lies inside the window ending at `now` (for metrics). */
  usedAt(now: number): number {
    let used = 0;
    for (let i = 0; i < this.count; i++) if (this.stamps[i]! > now - this.windowMs) used++;
    return used;
  }
}

/**
 * The per-chat log, kept inline in the chat's state so that an idle chat costs no extra object: the
 * arrival bounds of its two most recent calls (-1 when none), and older ones in an array only when
 * the per-chat limit is above 2. A chat runs one call at a time, so each bound is recorded once,
 * when the answer comes, and the entries are in order. Whole milliseconds stay small integers, which
 * V8 stores without boxing.
 */
export interface ChatLog {
  recent: number;
  earlier: number;
  older: number[] | null;
}

/** The k-th most recent entry (1-based), or -1. */
function nth(log: ChatLog, k: number): number {
  if (k === 1) return log.recent;
  if (k === 2) return log.earlier;
  return log.older?.[k - 3] ?? -1;
}

/** Earliest time, not before `now`, at which a chat with this log may start one more call. */
export function chatNextFreeAt(log: ChatLog, limit: number, windowMs: number, now: number): number {
  const kth = nth(log, limit);
  return kth < 0 ? now : Math.max(now, kth + windowMs);
}

/** Records one more call that arrived by `time`. */
export function chatRecord(log: ChatLog, limit: number, time: number): void {
  if (limit > 2 && log.earlier >= 0) log.older = [log.earlier, ...(log.older ?? [])].slice(0, limit - 2);
  log.earlier = limit > 1 ? log.recent : -1;
  log.recent = Math.ceil(time);
}

/** Entries inside the window ending at `now`. */
export function chatCountIn(log: ChatLog, windowMs: number, now: number): number {
  let n = 0;
  for (const stamp of [log.recent, log.earlier, ...(log.older ?? [])])
    if (stamp >= 0 && stamp > now - windowMs) n++;
  return n;
}

/** When the log stops constraining anything: its newest entry plus the window (0 when empty). */
export function chatExpiresAt(log: ChatLog, windowMs: number): number {
  return log.recent < 0 ? 0 : log.recent + windowMs;
}
