/**
 * The updates waiting for GET /updates. Each update gets a number; a client's `marker` says "I have
 * everything before this number". A request without a marker gets only the most recent update not
 * acknowledged yet (the OpenAPI text: "to get the latest update, pass null"), and a marker after it.
 * Requests hold until an update of a wanted type arrives or their timeout passes.
 */

type Update = Record<string, unknown> & { update_type: string };

interface Waiter {
  types: ReadonlySet<string> | undefined;
  from: number;
  wake: () => void;
}

/** Long-polling queue of one bot. */
export class PollQueue {
  private entries: { n: number; update: Update }[] = [];
  private next = 1;
  private acknowledged = 1;
  private waiters = new Set<Waiter>();
  private closed = false;

  /** @param capacity updates kept at most; the oldest are dropped beyond it, as the platform expires old updates. */
  constructor(private readonly capacity = 10_000) {}

  /** Adds an update and wakes the requests waiting for it. */
  push(update: Update): void {
    this.entries.push({ n: this.next++, update });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    for (const w of [...this.waiters]) {
      if (!w.types || w.types.has(update.update_type)) w.wake();
    }
  }

  /** Number of updates not acknowledged yet. */
  get pending(): number {
    return this.entries.filter((e) => e.n >= this.acknowledged).length;
  }

  private take(from: number, limit: number, types: ReadonlySet<string> | undefined, latestOnly: boolean) {
    const found = this.entries.filter((e) => e.n >= from && (!types || types.has(e.update.update_type)));
    const batch = latestOnly ? found.slice(-1) : found.slice(0, limit);
    const last = batch.at(-1);
    return { updates: batch.map((e) => e.update), marker: last ? last.n + 1 : Math.max(from, 1) };
  }

  /**
   * Answers one GET /updates: waits up to `timeoutMs` for updates numbered `marker` or later (only the
   * latest unacknowledged one when `marker` is absent), and acknowledges everything before the marker given.
   */
  async poll(args: {
    marker?: number;
    limit: number;
    timeoutMs: number;
    types?: ReadonlySet<string>;
    signal?: AbortSignal;
  }): Promise<{ updates: Update[]; marker: number }> {
    const from = args.marker ?? this.acknowledged;
    if (args.marker !== undefined)
      this.acknowledged = Math.max(this.acknowledged, Math.min(args.marker, this.next));
    const latestOnly = args.marker === undefined;
    let result = this.take(from, args.limit, args.types, latestOnly);
    if (result.updates.length > 0 || args.timeoutMs <= 0 || this.closed) return result;
    await new Promise<void>((resolve) => {
      const waiter: Waiter = {
        types: args.types,
        from,
        wake: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          args.signal?.removeEventListener('abort', waiter.wake);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, args.timeoutMs);
      this.waiters.add(waiter);
      args.signal?.addEventListener('abort', waiter.wake);
    });
    result = this.take(from, args.limit, args.types, latestOnly);
    return result;
  }

  /** Answers every waiting request now (used when the sandbox closes). */
  close(): void {
    this.closed = true;
    for (const w of [...this.waiters]) w.wake();
  }

  /** State to persist. */
  snapshot(): { next: number; acknowledged: number; entries: { n: number; update: Update }[] } {
    return { next: this.next, acknowledged: this.acknowledged, entries: this.entries };
  }

  /** Restores what `snapshot()` returned. */
  restore(s: { next: number; acknowledged: number; entries: { n: number; update: Update }[] }): void {
    this.next = s.next;
    this.acknowledged = s.acknowledged;
    this.entries = s.entries;
  }
}
