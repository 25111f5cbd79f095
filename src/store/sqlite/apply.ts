/**
 * Applying a planned batch: every event's writes in ONE transaction (the fast path); should that fail,
 * again event by event in savepoints (the careful path). Used by the engine's own connection and by the
 * writer thread alike, so both commit a batch the same way.
 *
 * In the careful path an event whose session moved on (a revision conflict: another process wrote it) is
 * held, not failed: it stays pending and is planned again from the stored session. An event whose writes
 * the database refuses is marked failed with the reason. Either way the later events of its conversation
 * in the batch are held too (they were planned on top of it).
 */
import type Database from 'better-sqlite3';
import { RevisionConflictError } from '../sessions.ts';
import { SQLite } from '../sqlite.ts';
import type { ApplyResult, PlannedWrites } from '../write-plan.ts';
import { applyWrites, WriteStores } from './commit.ts';

export type { ApplyResult, PlannedWrites } from '../write-plan.ts';

/** Failures of the environment, not of one event: the batch is retried later instead of failing events. */
const ENVIRONMENTAL = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|NOMEM|READONLY|CANTOPEN|CORRUPT|PROTOCOL|INTERRUPT)/;

/** True for SQLite errors that say nothing about the event being handled (disk full, database locked…). */
export function isEnvironmental(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return error instanceof SQLite.SqliteError && typeof code === 'string' && ENVIRONMENTAL.test(code);
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Applies planned batches over one connection. */
export class BatchApplier {
  readonly stores: WriteStores;
  readonly #now: () => number;
  readonly #savepoint: Database.Transaction<(writes: PlannedWrites) => number>;
  readonly #fast: Database.Transaction<(batch: readonly PlannedWrites[]) => ApplyResult[]>;
  readonly #careful: Database.Transaction<(batch: readonly PlannedWrites[]) => ApplyResult[]>;

  constructor(db: Database.Database, now: () => number) {
    this.stores = new WriteStores(db);
    this.#now = now;
    this.#savepoint = db.transaction((writes: PlannedWrites) => applyWrites(this.stores, writes.ops));
    this.#fast = db.transaction((batch: readonly PlannedWrites[]) => this.#applyAll(batch));
    this.#careful = db.transaction((batch: readonly PlannedWrites[]) => this.#applyEach(batch));
  }

  /** The fast path, inside the caller's transaction: throws at the first failure (roll the batch back). */
  #applyAll(batch: readonly PlannedWrites[]): ApplyResult[] {
    const results = batch.map(
      (writes): ApplyResult => ({
        status: 'applied',
        dropped: applyWrites(this.stores, writes.ops),
      }),
    );
    // Every event of the batch not settled otherwise was done. Consecutive ids (rows read in id order, the
    // usual batch): one statement settles them. Otherwise one per event: a range would also settle pending
    // rows the batch does not hold (as botflow_apply_batch, which settles the batch's own ids, never does).
    const now = this.#now();
    const first = batch[0]?.inboxId ?? 0;
    if (batch.every((writes, i) => writes.inboxId === first + i)) {
      if (batch.length > 0) this.stores.inbox.settleDone(first, first + batch.length - 1, now);
    } else for (const writes of batch) this.stores.inbox.settleDone(writes.inboxId, writes.inboxId, now);
    return results;
  }

  /** The careful path, inside the caller's transaction: one savepoint per event. */
  #applyEach(batch: readonly PlannedWrites[]): ApplyResult[] {
    const held = new Set<string>();
    return batch.map((writes): ApplyResult => {
      const key = writes.conversationKey;
      if (key !== null && held.has(key)) return { status: 'held' };
      try {
        const dropped = this.#savepoint(writes);
        if (writes.done) this.stores.inbox.settle(writes.inboxId, 'done', null, key, this.#now());
        return { status: 'applied', dropped };
      } catch (error) {
        if (isEnvironmental(error)) throw error;
        if (key !== null) held.add(key);
        if (error instanceof RevisionConflictError) return { status: 'held' };
        const reason = describeError(error);
        this.stores.inbox.settle(writes.inboxId, 'failed', reason, key, this.#now());
        return { status: 'failed', reason, error };
      }
    });
  }

  /** Applies `batch` in its own transaction, fast then careful. Throws environmental errors (nothing applied). */
  apply(batch: readonly PlannedWrites[]): ApplyResult[] {
    try {
      return this.#fast.immediate(batch);
    } catch (error) {
      return this.#applyCarefully(batch, error);
    }
  }

  /** The careful path in its own transaction, after the fast path failed with `error` (rethrown if environmental). */
  #applyCarefully(batch: readonly PlannedWrites[], error: unknown): ApplyResult[] {
    if (isEnvironmental(error)) throw error;
    return this.#careful.immediate(batch);
  }
}
