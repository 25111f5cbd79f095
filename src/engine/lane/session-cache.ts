/**
 * The sessions this process wrote most recently, in memory: the row as committed, the XState snapshot it
 * was computed as (so the next event of the conversation skips parsing and restoring it) and the timers
 * it has armed. Bounded (least recently used entries go first), so memory does not grow with the number
 * of conversations. The database stays the truth: a write made from a stale entry fails its revision
 * compare-and-swap, and the engine then drops the entry and plans the event again from the database.
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { WrittenSession } from '../commit/write-plan.ts';
import type { FlowDefinition } from '../step/contract.ts';

/** A cached session. */
export interface CachedSession extends WrittenSession {
  /** The flow and machine snapshot `row.snapshot` was stored from, when this process computed them. */
  machine?: { flow: FlowDefinition; snapshot: AnyMachineSnapshot };
}

/** A bounded least-recently-used map of sessions by conversation key. */
export class SessionCache {
  readonly #entries = new Map<string, CachedSession>();
  readonly capacity: number;

  /** `capacity` 0 disables the cache. */
  constructor(capacity: number) {
    this.capacity = Math.max(0, Math.trunc(capacity));
  }

  get(key: string): CachedSession | undefined {
    const entry = this.#entries.get(key);
    if (entry) {
      // Map keeps insertion order: re-inserting makes the entry the most recently used.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedSession): void {
    if (this.capacity === 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > this.capacity) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
