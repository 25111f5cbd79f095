/**
 * Sliding-window logs: a request may start when fewer than `limit` requests fall in the last window.
 * Unlike a token bucket (which lets capacity + rate through in one window), a log never exceeds the
 * limit in ANY window of that length. Times are whole milliseconds, rounded up when recorded, so a
 * recorded start is never earlier than the real one.
 */

/**
 * The log for one scope with a fixed limit (the global scope). The platform counts a request when it
 * ARRIVES, somewhere between its start and its answer (connection queues can delay it by hundreds of ms,
 * and a long poll's answer comes seconds after it arrived). So each start is kept with an upper bound of
 * its arrival: while the call is in flight a provisional one (start + the longest plausible arrival
 * delay), lowered to the answer's time when the answer comes. A call may start at `now` when fewer than
 * `limit` kept bounds lie within a window before it (a bound + window > now): whichever the order of
 * arrivals, any window holding the new call's arrival and `limit` others would hold `limit` calls whose
 * bounds are no earlier than the new start less a window, and they would have been counted. Bounds only
 * fall, so one that has left the window never counts again and is dropped.
 *
 * (Until issue 36 the log was a ring in start order: a call waited for the bound of the call `limit`
 * starts before it, so one slow answer, a long poll held open by the platform most of all, held up every
 * start behind it: a backlog drained at 18 to 24 sends a second of the 28 allowed.)
 */
export class SlidingWindowLog {
  /** The kept starts' tickets and arrival bounds (whole ms), in start order. */
  private readonly tickets: number[] = [];
  private readonly bounds: number[] = [];
  /** Starts counted so far (a start's ticket is the count before it). */
  private started = 0;

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
  }

  /** Earliest time, not before `now`, at which one more start fits in the window. */
  nextFreeAt(now: number): number {
    // One pass, no allocation (the scheduler asks before every start): how many count, and the earliest.
    let live = 0;
    let earliest = Number.POSITIVE_INFINITY;
    for (const bound of this.bounds) {
      if (bound + this.windowMs <= now) continue;
      live++;
      if (bound < earliest) earliest = bound;
    }
    if (live < this.limit) return now;
    if (live === this.limit) return Math.max(now, earliest + this.windowMs);
    // More than the limit (starts made without asking): room comes when all but `limit - 1` have left.
    const sorted = this.bounds.filter((bound) => bound + this.windowMs > now).sort((a, b) => a - b);
    return Math.max(now, sorted[sorted.length - this.limit]! + this.windowMs);
  }

  /**
   * Counts a start at `now` whose arrival is bounded by `arrivedBy`; returns its ticket for `settle` (the
   * how-manieth start it was).
   */
  start(arrivedBy: number, now: number): number {
    this.#drop(now);
    this.tickets.push(this.started);
    this.bounds.push(Math.ceil(arrivedBy));
    return this.started++;
  }

  /** The answer to the start with `ticket` came at `at`: it arrived by then (a dropped start is past caring). */
  settle(ticket: number, at: number): void {
    const i = this.tickets.indexOf(ticket);
    if (i >= 0) this.bounds[i] = Math.min(this.bounds[i]!, Math.ceil(at));
  }

  /** Starts whose arrival bound lies inside the window ending at `now` (for metrics). */
  usedAt(now: number): number {
    let used = 0;
    for (const bound of this.bounds) if (bound > now - this.windowMs) used++;
    return used;
  }

  /** Forgets the starts whose bounds left the window before `now`: they never count again. */
  #drop(now: number): void {
    let kept = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      if (this.bounds[i]! + this.windowMs <= now) continue;
      this.tickets[kept] = this.tickets[i]!;
      this.bounds[kept] = this.bounds[i]!;
      kept++;
    }
    this.tickets.length = kept;
    this.bounds.length = kept;
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
