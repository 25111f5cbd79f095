/**
 * The engine's side of the `inbox` table (created by 001_inbox, filled by intake): reading pending events
 * in arrival order, settling them, adding the engine's own events (due timers, effect results) so that they
 * run in the same per-conversation order as updates, and reading a conversation's event history.
 */
import type Database from 'better-sqlite3';
import type { InboxEvent, InboxHistoryRow } from './ports/rows.ts';

export type { InboxEvent, InboxHistoryRow } from './ports/rows.ts';

/** What handling an event needs (read for every event: no more). */
const EVENT_COLUMNS = 'id, kind, conversation_key AS conversationKey, payload, received_at AS receivedAt';
const COLUMNS = `${EVENT_COLUMNS}, dedupe_key AS dedupeKey, update_type AS updateType, attempts`;

/** The engine's queries on the inbox; statements are prepared once. */
export class EngineInbox {
  readonly #pending: Database.Statement<[number, number], InboxEvent>;
  readonly #settle: Database.Statement<[string, string | null, number, string | null, number]>;
  readonly #settleRange: Database.Statement<[number, number, number]>;
  readonly #countAttempt: Database.Statement<[number]>;
  readonly #add: Database.Statement;
  readonly #history: Database.Statement<[string, number, number], InboxHistoryRow>;
  readonly #pendingCount: Database.Statement<[], { n: number }>;

  constructor(db: Database.Database) {
    this.#pending = db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM inbox WHERE status = 'pending' AND id > ? ORDER BY id LIMIT ?`,
    );
    this.#settle = db.prepare(
      'UPDATE inbox SET status = ?, error = ?, processed_at = ?, conversation_key = coalesce(conversation_key, ?), ' +
        'attempts = attempts + 1 ' +
        "WHERE id = ? AND status = 'pending'",
    );
    this.#settleRange = db.prepare(
      "UPDATE inbox SET status = 'done', processed_at = ?, attempts = attempts + 1 " +
        "WHERE id BETWEEN ? AND ? AND status = 'pending'",
    );
    this.#countAttempt = db.prepare('UPDATE inbox SET attempts = attempts + 1 WHERE id = ?');
    this.#add = db.prepare(
      'INSERT INTO inbox (kind, dedupe_key, conversation_key, payload, received_at) ' +
        'VALUES (@kind, @dedupeKey, @conversationKey, @payload, @receivedAt) ON CONFLICT (dedupe_key) DO NOTHING',
    );
    this.#history = db.prepare(
      `SELECT ${COLUMNS}, status, error, processed_at AS processedAt FROM inbox WHERE conversation_key = ? ` +
        'AND id < ? ORDER BY id DESC LIMIT ?',
    );
    this.#pendingCount = db.prepare("SELECT count(*) AS n FROM inbox WHERE status = 'pending'");
  }

  /** Up to `limit` pending events with id greater than `afterId`, in arrival order. */
  pending(afterId: number, limit: number): InboxEvent[] {
    return this.#pending.all(afterId, limit);
  }

  /** How many events wait to be processed. */
  pendingCount(): number {
    return this.#pendingCount.get()!.n;
  }

  /**
   * Settles a pending event: `done`, `ignored` (nobody wanted it; `reason` says why) or `failed` (`reason`
   * is the error). Fills in the conversation key when intake could not.
   */
  settle(
    id: number,
    status: 'done' | 'ignored' | 'failed',
    reason: string | null,
    conversationKey: string | null,
    now: number,
  ): void {
    this.#settle.run(status, reason, now, conversationKey, id);
  }

  /**
   * Marks done every event with an id from `firstId` to `lastId` that is still pending: one statement for a
   * whole batch, after the events that ended otherwise were settled one by one.
   */
  settleDone(firstId: number, lastId: number, now: number): void {
    this.#settleRange.run(now, firstId, lastId);
  }

  /** Counts one processing attempt of an event (kept when the attempt's transaction rolls back). */
  countAttempt(id: number): void {
    this.#countAttempt.run(id);
  }

  /** Adds an engine event (a due timer, an effect result); a second add with the same key is ignored. */
  add(event: {
    kind: string;
    dedupeKey: string;
    conversationKey: string;
    payload: string;
    receivedAt: number;
  }): boolean {
    return this.#add.run(event).changes === 1;
  }

  /** A conversation's events, newest first, with ids below `beforeId` (paging). */
  history(conversationKey: string, limit = 50, beforeId = Number.MAX_SAFE_INTEGER): InboxHistoryRow[] {
    return this.#history.all(conversationKey, beforeId, Math.min(Math.max(1, Math.trunc(limit)), 1000));
  }
}
