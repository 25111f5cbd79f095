/**
 * Wall time: this machine's real time, for the few reads that must not follow the injected clock
 * (clock.ts). Everything the pipeline records or compares (an inbox row's `received_at`, a timer's due time,
 * a budget's window, a dead letter's stamp) reads a `Clock` handed down from the composition root
 * (`createEngine`'s `clock`/`now`, the scheduler's `clock`, a store's `now`), so a test or a replay drives it
 * with a virtual clock. What reads `wallNow()` instead measures this process, not the conversations:
 *
 * - lease liveness: leases are renewed on real timers and judged by the database's clock, whatever clock
 *   drives the flows (a virtual clock that stands still must not let a lease lapse or look fresh);
 * - shutdown deadlines and how long each shutdown step took (the platform and the orchestrator count in
 *   real seconds);
 * - the loop's liveness watchdog (`engine.alive()`: has the loop turned in the last seconds of real time);
 * - process-level timers and pacing: the long poll's spacing, progress lines, log throttling, waits for a
 *   start in the database-timed shared budget, a Retry-After given as an HTTP date by the platform;
 * - when this process migrated the schema, loaded flows or drew a page (for operators, not for
 *   conversations).
 *
 * test/architecture/clock.test.ts fails on any other raw `Date.now()` in src/ (the sandbox emulates the
 * platform and is its own clock).
 */

/** Milliseconds since the epoch on this machine's clock: only for the reads listed above. */
export function wallNow(): number {
  return Date.now();
}
