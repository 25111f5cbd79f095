/**
 * Every Bot API request the sandbox answered: when, what, against which chat, with which status.
 * The rate-limiter's tests read it to prove no one-second window went over the limits.
 */

export interface LoggedRequest {
  /**
   * Wall-clock time the request was admitted (or refused) by the limiter, ms since the epoch with
   * sub-millisecond precision; real time whatever the sandbox clock.
   */
  time: number;
  method: string;
  /** Path without the query string. */
  path: string;
  /** Operation name from the API's operation table (e.g. `sendMessage`), or absent for unknown routes. */
  op?: string;
  /** The chat the request counted against for the per-chat limit (chat-scoped operations only). */
  chat?: number;
  status: number;
}

/** Bounded, append-only log of Bot API requests. */
export class RequestLog {
  private entries: LoggedRequest[] = [];

  constructor(private readonly capacity = 100_000) {}

  add(entry: LoggedRequest): void {
    this.entries.push(entry);
    // Trim in chunks so that a full log does not copy itself on every request.
    if (this.entries.length > this.capacity * 1.1)
      this.entries.splice(0, this.entries.length - this.capacity);
  }

  /** Entries, oldest first; `since` keeps those at or after a time. */
  list(since = 0): LoggedRequest[] {
    return since ? this.entries.filter((e) => e.time >= since) : [...this.entries];
  }

  clear(): void {
    this.entries = [];
  }
}
