/**
 * Queries of the `inbox` table: the durable, de-duplicated log of every event botflow must handle.
 * Intake appends; the engine reads pending rows in arrival order and settles them.
 */
import type Database from 'better-sqlite3';
import { systemClock } from './ports/clock.ts';
import type { AppendResult, InboxEntry, InboxRow, InboxStatus } from './ports/rows.ts';

export type { AppendResult, InboxEntry, InboxKind, InboxRow, InboxStatus } from './ports/rows.ts';

const COLUMNS =
  'id, kind, dedupe_key AS dedupeKey, conversation_key AS conversationKey, update_type AS updateType, ' +
  'payload, received_at AS receivedAt, status, attempts, error, processed_at AS processedAt';

/** Rows deleted per statement while pruning, so that one prune never holds the write lock for long. */
const PRUNE_CHUNK = 2000;

/** The inbox queries over one connection; statements are prepared once. */
export class InboxStore {
  private readonly insert: Database.Statement;
  private readonly selectPending: Database.Statement;
  private readonly selectById: Database.Statement;
  private readonly selectByDedupeKey: Database.Statement;
  private readonly pruneChunk: Database.Statement;
  private readonly countByStatus: Database.Statement;
  private readonly appendAll: (entries: readonly InboxEntry[]) => AppendResult[];

  /** `now` stamps `received_at` of entries that bring none (the engine's clock; default the system clock). */
  constructor(
    readonly db: Database.Database,
    private readonly now: () => number = systemClock.now,
  ) {
    this.insert = db.prepare(
      'INSERT INTO inbox (kind, dedupe_key, conversation_key, update_type, payload, received_at) ' +
        'VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING',
    );
    this.selectPending = db.prepare(
      `SELECT ${COLUMNS} FROM inbox WHERE status = 'pending' AND id > ? ORDER BY id LIMIT ?`,
    );
    this.selectById = db.prepare(`SELECT ${COLUMNS} FROM inbox WHERE id = ?`);
    this.selectByDedupeKey = db.prepare(`SELECT ${COLUMNS} FROM inbox WHERE dedupe_key = ?`);
    this.pruneChunk = db.prepare(
      "DELETE FROM inbox WHERE id IN (SELECT id FROM inbox WHERE received_at < ? AND status <> 'pending' LIMIT ?)",
    );
    this.countByStatus = db.prepare('SELECT status, count(*) AS n FROM inbox GROUP BY status');
    this.appendAll = db.transaction((entries: readonly InboxEntry[]) => {
      const now = this.now();
      return entries.map((e): AppendResult => {
        const { changes, lastInsertRowid } = this.insert.run(
          e.kind ?? 'update',
          e.dedupeKey,
          e.conversationKey ?? null,
          e.updateType ?? null,
          e.payload,
          e.receivedAt ?? now,
        );
        return changes > 0 ? { inserted: true, id: Number(lastInsertRowid) } : { inserted: false, id: null };
      });
    });
  }

  /**
   * Appends `entries` in one transaction (nested in the caller's transaction when there is one) and says,
   * entry by entry, which were new. Duplicates, within the batch or with stored rows, are ignored.
   */
  append(entries: readonly InboxEntry[]): AppendResult[] {
    return entries.length === 0 ? [] : this.appendAll(entries);
  }

  /** Up to `limit` pending rows with an id above `afterId`, oldest first, as stored (the engine reads `EngineInbox`). */
  nextPending(limit = 100, afterId = 0): InboxRow[] {
    return this.selectPending.all(afterId, limit) as InboxRow[];
  }

  /** One row by id. */
  get(id: number): InboxRow | undefined {
    return this.selectById.get(id) as InboxRow | undefined;
  }

  /** The row stored under a de-duplication key. */
  findByDedupeKey(dedupeKey: string): InboxRow | undefined {
    return this.selectByDedupeKey.get(dedupeKey) as InboxRow | undefined;
  }

  /**
   * Deletes settled rows received more than `retentionMs` ago (pending rows are never pruned), in
   * short chunks. Returns the number of rows deleted. Keep the retention longer than the platform's
   * redelivery horizon (hours), or a late redelivery would be accepted again.
   */
  prune(retentionMs: number, now = this.now()): number {
    const cutoff = now - retentionMs;
    let total = 0;
    for (;;) {
      const { changes } = this.pruneChunk.run(cutoff, PRUNE_CHUNK);
      total += changes;
      if (changes < PRUNE_CHUNK) return total;
    }
  }

  /** Row counts per status (statuses with no rows are 0). */
  counts(): Record<InboxStatus, number> {
    const counts: Record<InboxStatus, number> = { pending: 0, done: 0, failed: 0, ignored: 0 };
    for (const { status, n } of this.countByStatus.all() as { status: InboxStatus; n: number }[]) {
      counts[status] = n;
    }
    return counts;
  }
}
