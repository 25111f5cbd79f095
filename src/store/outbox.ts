/**
 * The `outbox` table: API calls that committed steps imply, sent later by the dispatcher in order per
 * `order_key`. A row is `pending` until handed to the scheduler, `sending` while in flight (a crash leaves
 * it there and the restart sends it again: only in-flight calls can be duplicated), then `done`,
 * `failed` (given up) or `dropped` (the person left before it was sent).
 */
import type Database from 'better-sqlite3';
import { systemClock } from './ports/clock.ts';
import type { NewOutboxRow, OutboxRow } from './ports/outbox.ts';

export type { NewOutboxRow, OutboxRow } from './ports/outbox.ts';

const COLUMNS =
  'id, conversation_key AS conversationKey, revision, seq, order_key AS orderKey, chat_id AS chatId, kind, op, ' +
  'args, ref, priority, idempotency_key AS idempotencyKey, status, attempts, result, error, ' +
  'created_at AS createdAt, sent_at AS sentAt, finished_at AS finishedAt';

/** Queries of the `outbox` table; statements are prepared once. */
export class OutboxStore {
  readonly #insert: Database.Statement;
  readonly #open: Database.Statement<[number, number], OutboxRow>;
  readonly #claim: Database.Statement<[number, number]>;
  readonly #finish: Database.Statement;
  readonly #dropConversation: Database.Statement<[string, number, string]>;
  readonly #dropConversationBut: Database.Statement<[string, number, string, string]>;
  readonly #byConversation: Database.Statement<[string, number], OutboxRow>;
  readonly #get: Database.Statement<[number], OutboxRow>;
  readonly #counts: Database.Statement<[], { status: string; n: number }>;
  readonly #prune: Database.Statement<[number, number]>;
  readonly #release: Database.Statement<[number]>;

  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#insert = db.prepare(
      'INSERT INTO outbox (conversation_key, revision, seq, order_key, chat_id, kind, op, args, ref, priority, ' +
        'idempotency_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#open = db.prepare(
      `SELECT ${COLUMNS} FROM outbox WHERE status IN ('pending', 'sending') AND id > ? ORDER BY id LIMIT ?`,
    );
    this.#claim = db.prepare(
      "UPDATE outbox SET status = 'sending', attempts = attempts + 1, sent_at = coalesce(sent_at, ?) " +
        "WHERE id = ? AND status IN ('pending', 'sending')",
    );
    this.#finish = db.prepare(
      'UPDATE outbox SET status = @status, result = @result, error = @error, finished_at = @now ' +
        "WHERE id = @id AND status = 'sending'",
    );
    this.#dropConversation = db.prepare(
      "UPDATE outbox SET status = 'dropped', error = ?, finished_at = ? WHERE conversation_key = ? " +
        "AND status = 'pending'",
    );
    this.#dropConversationBut = db.prepare(
      "UPDATE outbox SET status = 'dropped', error = ?, finished_at = ? WHERE conversation_key = ? " +
        "AND status = 'pending' AND op NOT IN (SELECT value FROM json_each(?))",
    );
    this.#byConversation = db.prepare(
      `SELECT ${COLUMNS} FROM outbox WHERE conversation_key = ? ORDER BY id DESC LIMIT ?`,
    );
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM outbox WHERE id = ?`);
    this.#release = db.prepare(
      "UPDATE outbox SET status = 'pending', attempts = attempts - 1, " +
        // An earlier claim may have sent the call: its first send time stays (the read-back starts there).
        "sent_at = CASE WHEN attempts > 1 THEN sent_at END WHERE id = ? AND status = 'sending'",
    );
    this.#counts = db.prepare('SELECT status, count(*) AS n FROM outbox GROUP BY status');
    this.#prune = db.prepare(
      'DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE finished_at < ? ' +
        "AND status IN ('done', 'failed', 'dropped') LIMIT ?)",
    );
  }

  /**
   * Inserts one row. Its idempotency key is not checked for uniqueness: a step's rows are written once, in
   * the transaction that moves the session to a new revision (see migrations/004).
   */
  insert(row: NewOutboxRow): void {
    const key = row.idempotencyKey ?? `${row.conversationKey}:${row.revision}:${row.seq}`;
    this.#insert.run(
      row.conversationKey,
      row.revision,
      row.seq,
      row.orderKey,
      row.chatId,
      row.kind,
      row.op,
      row.args,
      row.ref,
      row.priority,
      key,
      row.createdAt,
    );
  }

  /** Up to `limit` pending or in-flight rows with id greater than `afterId`, in id (commit) order. */
  open(afterId: number, limit: number): OutboxRow[] {
    return this.#open.all(afterId, limit);
  }

  /** One row by id. */
  get(id: number): OutboxRow | undefined {
    return this.#get.get(id);
  }

  /**
   * Marks a row in flight (counts an attempt; the first send time stays). False when it was dropped or
   * finished meanwhile.
   */
  claim(id: number, now: number): boolean {
    return this.#claim.run(now, id).changes === 1;
  }

  /** Calls that failed for good (dead letters), most recent first, for people to look at and re-drive. */
  failed(limit = 100): OutboxRow[] {
    return this.#db
      .prepare(`SELECT ${COLUMNS} FROM outbox WHERE status = 'failed' ORDER BY id DESC LIMIT ?`)
      .all(limit) as OutboxRow[];
  }

  /**
   * Puts failed calls back in line (all of them without `ids`): pending again, sent in their order key's
   * order by the next dispatch. Returns how many rows changed.
   */
  retryFailed(ids?: readonly number[]): number {
    return this.#changeFailed("status = 'pending', error = NULL, finished_at = NULL", ids);
  }

  /** Gives up on failed calls for good (all of them without `ids`): marked `dropped`. */
  dropFailed(ids?: readonly number[], now = systemClock.now()): number {
    return this.#changeFailed(`status = 'dropped', finished_at = ${Math.floor(now)}`, ids);
  }

  #changeFailed(set: string, ids?: readonly number[]): number {
    const where = ids ? `AND id IN (${ids.map(() => '?').join(', ')})` : '';
    if (ids && ids.length === 0) return 0;
    return this.#db.prepare(`UPDATE outbox SET ${set} WHERE status = 'failed' ${where}`).run(...(ids ?? []))
      .changes;
  }

  /**
   * Gives back a claimed row that was never sent (the process is stopping): pending again, attempt not
   * counted; its send time is kept when an earlier claim may have sent the call (issue 28).
   */
  release(id: number): void {
    this.#release.run(id);
  }

  /** Records the outcome of an in-flight row. */
  finish(
    id: number,
    outcome: { status: 'done' | 'failed'; result?: string; error?: string },
    now: number,
  ): void {
    this.#finish.run({
      id,
      status: outcome.status,
      result: outcome.result ?? null,
      error: outcome.error ?? null,
      now,
    });
  }

  /**
   * Stored results of messages sent to `chatId` by calls finished at or after `since`, among the `scan` rows before `beforeId`
   * (a resend after a crash learns which messages earlier calls already account for). Reads by primary
   * key only: no index on the hot path for this rare read.
   */
  sentResults(chatId: number, since: number, beforeId: number, scan = 20_000): (string | null)[] {
    return (
      this.#db
        .prepare(
          "SELECT result FROM outbox WHERE id < ? AND id >= ? AND chat_id = ? AND op = 'sendMessage' " +
            "AND status = 'done' AND finished_at >= ?",
        )
        .all(beforeId, beforeId - scan, chatId, since) as { result: string | null }[]
    ).map((row) => row.result);
  }

  /**
   * Drops every not-yet-sent row of a conversation, recording `reason`, but for rows of the operations in
   * `keep`; returns how many.
   */
  dropPending(conversationKey: string, reason: string, now: number, keep?: readonly string[]): number {
    if (keep?.length)
      return this.#dropConversationBut.run(reason, now, conversationKey, JSON.stringify(keep)).changes;
    return this.#dropConversation.run(reason, now, conversationKey).changes;
  }

  /** The latest rows of a conversation, newest first (support). */
  forConversation(conversationKey: string, limit = 50): OutboxRow[] {
    return this.#byConversation.all(conversationKey, limit);
  }

  /** Row counts per status (metrics, tests). */
  counts(): Record<OutboxRow['status'], number> {
    const out = { pending: 0, sending: 0, done: 0, failed: 0, dropped: 0 };
    for (const { status, n } of this.#counts.all()) out[status as OutboxRow['status']] = n;
    return out;
  }

  /** Deletes up to `limit` settled rows finished before `before` (ms); returns how many. */
  prune(before: number, limit = 2000): number {
    return this.#prune.run(before, limit).changes;
  }
}
