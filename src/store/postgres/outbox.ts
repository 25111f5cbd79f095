/**
 * The outbox on PostgreSQL, for the elected dispatcher: claiming the head call of each order key (the
 * first open row of a chat or callback), settling calls with their result event in one transaction, and
 * giving back calls never sent. Claims check the dispatcher lease in the same statement, so a process that
 * lost the lease claims nothing more.
 */
import type pg from 'pg';
import { systemClock } from '../ports/clock.ts';
import { claimOrder, type OutboxFinish, type OutboxPort, type OutboxRow } from '../ports/outbox.ts';
import { SESSION_GONE } from './leases.ts';

const COLUMNS =
  'o.id, o.conversation_key AS "conversationKey", o.revision, o.seq, o.order_key AS "orderKey", ' +
  'o.chat_id AS "chatId", o.kind, o.op, o.args, o.ref, o.priority, o.idempotency_key AS "idempotencyKey", ' +
  'o.status, o.attempts, o.result, o.error, o.created_at AS "createdAt", o.sent_at AS "sentAt", ' +
  'o.finished_at AS "finishedAt", o.partition';

/** The channel on which committed calls are announced to the dispatcher, in the default schema (another: `channelsOf(schema).outbox`). */
export const OUTBOX_CHANNEL = 'botflow_outbox';

/** Tells the dispatcher (whichever process holds the lease) that calls were committed. */
export async function notifyOutbox(pool: pg.Pool): Promise<void> {
  await pool.query(`SELECT pg_notify(botflow_channel('outbox'), '')`);
}

/** An outbox row with the partition of its conversation. */
export type PgOutboxRow = OutboxRow & { partition: number };

/** The dispatcher's outbox queries over a pool. */
export class PgOutbox implements OutboxPort {
  constructor(readonly pool: pg.Pool) {}

  /**
   * Marks in flight (attempt counted; the send time is set by `markSent`, when the call goes out) the head row of up to `limit` order keys
   * not in `busy`, oldest first, if `owner` holds the dispatcher lease. Heads left `sending` by a
   * dispatcher that died (no live member of that id, or one whose session is gone) are claimed again (their attempts say so); those of
   * a live process that lost the lease stay with it until it settles them. Returns the claimed rows.
   */
  async claimHeads(
    owner: string,
    busy: readonly string[],
    limit: number,
    _now: number,
    order: readonly string[] = [],
  ): Promise<PgOutboxRow[]> {
    // Heads by the rank of their priority in `order` (array_position; one it does not name last), then id.
    const { rows } = await this.pool.query<PgOutboxRow>(
      'WITH heads AS (SELECT * FROM (SELECT DISTINCT ON (order_key) id, order_key, priority FROM outbox ' +
        "WHERE status IN ('pending', 'sending') ORDER BY order_key, id) h " +
        'WHERE NOT (order_key = ANY ($2::text[])) ' +
        'ORDER BY coalesce(array_position($4::text[], priority), 2147483647), id LIMIT $3) ' +
        "UPDATE outbox o SET status = 'sending', attempts = o.attempts + 1, " +
        "claimed_by = $1 FROM heads WHERE o.id = heads.id AND (o.status = 'pending' OR (o.status = 'sending' AND " +
        'NOT EXISTS (SELECT 1 FROM members m WHERE m.id = o.claimed_by AND m.id <> $1 ' +
        `AND m.expires_at > botflow_now_ms() AND NOT (${SESSION_GONE})))) ` +
        "AND EXISTS (SELECT 1 FROM leases WHERE name = 'dispatcher' AND owner = $1 AND expires_at > botflow_now_ms()) " +
        `RETURNING ${COLUMNS}`,
      [owner, busy, limit, order],
    );
    return claimOrder(rows, order);
  }

  /**
   * How many calls other live processes still have in flight: a dispatcher that lost its lease while it
   * ran sends what its scheduler already holds; the next one waits for that before it sends (limits).
   */
  async othersSending(owner: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM outbox o WHERE o.status = 'sending' AND o.claimed_by <> $1 " +
        'AND EXISTS (SELECT 1 FROM members m WHERE m.id = o.claimed_by AND m.expires_at > botflow_now_ms() ' +
        `AND NOT (${SESSION_GONE}))`,
      [owner],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * Records the outcome of an in-flight row and, when the flow asked for the result (`ref`), its
   * `effect_result` event, in one transaction.
   */
  async finish(
    row: OutboxRow,
    outcome: OutboxFinish,
    resultEvent: string | undefined,
    now: number,
  ): Promise<boolean> {
    await this.pool.query(
      'WITH settled AS (UPDATE outbox SET status = $2, result = $3, error = $4, finished_at = $5 ' +
        "WHERE id = $1 AND status = 'sending' RETURNING id, partition, conversation_key) " +
        'INSERT INTO inbox (partition, kind, dedupe_key, conversation_key, payload, received_at) ' +
        "SELECT partition, 'effect_result', 'effect:' || $1, conversation_key, $6, $5 FROM settled " +
        'WHERE $6::text IS NOT NULL ON CONFLICT (dedupe_key) DO NOTHING',
      [row.id, outcome.status, outcome.result ?? null, outcome.error ?? null, now, resultEvent ?? null],
    );
    if (resultEvent !== undefined) await this.pool.query("SELECT pg_notify(botflow_channel('inbox'), '')");
    return true;
  }

  /** Stored results of messages sent to `chatId` by rows before `beforeId` finished since `since` (see OutboxStore). */
  async sentResults(chatId: number, since: number, beforeId: number): Promise<(string | null)[]> {
    const { rows } = await this.pool.query<{ result: string | null }>(
      "SELECT result FROM outbox WHERE chat_id = $1 AND op = 'sendMessage' AND status = 'done' AND finished_at >= $2 " +
        'AND id < $3',
      [chatId, since, beforeId],
    );
    return rows.map((row) => row.result);
  }

  /** The call goes to the transport now: from here a resend must read the chat back first (see `inDoubt`). */
  async markSent(row: Pick<OutboxRow, 'id'>, now: number): Promise<void> {
    await this.pool.query('UPDATE outbox SET sent_at = coalesce(sent_at, $2) WHERE id = $1', [row.id, now]);
  }

  /**
   * Gives back a claimed row that was never sent: pending again, attempt not counted. Its first send time
   * stays when an earlier attempt handed the call to the transport (issue 28: the read-back of the next
   * resend starts there, so it finds the first copy).
   */
  async release(row: Pick<OutboxRow, 'id'>): Promise<void> {
    await this.pool.query(
      "UPDATE outbox SET status = 'pending', attempts = attempts - 1, claimed_by = NULL " +
        "WHERE id = $1 AND status = 'sending'",
      [row.id],
    );
  }

  /** Row counts per status. */
  async counts(): Promise<Record<OutboxRow['status'], number>> {
    const out = { pending: 0, sending: 0, done: 0, failed: 0, dropped: 0 };
    const { rows } = await this.pool.query<{ status: OutboxRow['status']; n: number }>(
      'SELECT status, count(*)::bigint AS n FROM outbox GROUP BY status',
    );
    for (const { status, n } of rows) out[status] = n;
    return out;
  }

  /** Calls that failed for good (dead letters), newest first (`botflow outbox list`). */
  async failed(limit = 100): Promise<PgOutboxRow[]> {
    const { rows } = await this.pool.query<PgOutboxRow>(
      `SELECT ${COLUMNS} FROM outbox o WHERE o.status = 'failed' ORDER BY o.id DESC LIMIT $1`,
      [limit],
    );
    return rows;
  }

  /** Puts failed calls back in line (all without `ids`); the dispatcher is told. Returns how many. */
  async retryFailed(ids?: readonly number[]): Promise<number> {
    const n = await this.#changeFailed("status = 'pending', error = NULL, finished_at = NULL", ids);
    if (n > 0) await notifyOutbox(this.pool);
    return n;
  }

  /** Gives up on failed calls for good (all without `ids`): marked `dropped`. Returns how many. */
  async dropFailed(ids?: readonly number[], now = systemClock.now()): Promise<number> {
    return this.#changeFailed(`status = 'dropped', finished_at = ${Math.floor(now)}`, ids);
  }

  async #changeFailed(set: string, ids?: readonly number[]): Promise<number> {
    if (ids && ids.length === 0) return 0;
    const { rowCount } = await this.pool.query(
      `UPDATE outbox SET ${set} WHERE status = 'failed'${ids ? ' AND id = ANY ($1::bigint[])' : ''}`,
      ids ? [ids] : [],
    );
    return rowCount ?? 0;
  }
}
