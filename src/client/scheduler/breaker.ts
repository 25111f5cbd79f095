/**
 * The circuit breaker: when calls keep failing for reasons of the platform's (no connection, 5xx), the
 * whole scheduler pauses instead of letting every queued call burn its retries against a platform that is
 * down. After a few failures in a row it opens for a probe delay (1 s, doubling up to 30 s); the first call
 * after the pause is the probe; any success closes it, and the queued calls go out in their order.
 */

/** What the breaker tells the scheduler after a transient failure. */
export interface BreakerVerdict {
  /** Pause all sending until then (ms since the epoch), or 0 to go on. */
  pauseUntil: number;
  /** The breaker has just opened (log it once). */
  opened: boolean;
}

export class CircuitBreaker {
  #failuresInARow = 0;
  #delayMs = 0;

  constructor(
    private readonly threshold = 3,
    private readonly firstDelayMs = 1_000,
    private readonly maxDelayMs = 30_000,
  ) {}

  /** Whether sending is held back now. */
  get open(): boolean {
    return this.#delayMs > 0;
  }

  /** A call failed for a transient reason of the platform's. */
  failed(now: number): BreakerVerdict {
    this.#failuresInARow++;
    if (this.#failuresInARow < this.threshold) return { pauseUntil: 0, opened: false };
    const opened = this.#delayMs === 0;
    this.#delayMs = opened ? this.firstDelayMs : Math.min(this.maxDelayMs, this.#delayMs * 2);
    return { pauseUntil: now + this.#delayMs, opened };
  }

  /** A call succeeded: the platform answers. Returns whether the breaker was open. */
  succeeded(): boolean {
    const wasOpen = this.open;
    this.#failuresInARow = 0;
    this.#delayMs = 0;
    return wasOpen;
  }
}
