/**
 * Durable tasks on PostgreSQL. A task belongs to its conversation's partition and runs in the process that
 * owns it: claims check the partition lease in the same statement and record the claimer. An attempt a dead
 * process left `running` (its member gone) is made pending again by the partition's next owner, so each
 * attempt runs once across processes; one that a live process still runs stays with it.
 */
import type pg from 'pg';
import { COMPENSATION_SUFFIX, type TaskRow } from '../tasks.ts';
import { INBOX_CHANNEL } from './inbox.ts';

const COLUMNS =
  'id, conversation_key AS "conversationKey", revision, step_instance AS "stepInstance", name, ref, input, ' +
  'scope, policy, chat_id AS "chatId", idempotency_key AS "idempotencyKey", status, attempts, ' +
  'run_after AS "runAfter", result, error, created_at AS "createdAt", started_at AS "startedAt", ' +
  'finished_at AS "finishedAt"';

/** A live member other than `$1` claimed it. */
const CLAIMED_BY_OTHER_LIVE =
  'EXISTS (SELECT 1 FROM members m WHERE m.id = t.claimed_by AND m.id <> $1 AND m.expires_at > botflow_now_ms())';

/** The task queries of one process. */
export class PgTasks {
  constructor(readonly pool: pg.Pool) {}

  /**
   * Starts (attempt counted) up to `limit` due tasks of `partitions` that `member` holds the leases of,
   * earliest first; running tasks whose process is gone are made pending again first.
   */
  async claimDue(
    member: string,
    partitions: readonly number[],
    now: number,
    limit: number,
  ): Promise<TaskRow[]> {
    if (partitions.length === 0 || limit <= 0) return [];
    await this.pool.query(
      "UPDATE tasks t SET status = 'pending', claimed_by = NULL WHERE status = 'running' " +
        `AND partition = ANY ($2::int[]) AND NOT ${CLAIMED_BY_OTHER_LIVE} AND t.claimed_by IS DISTINCT FROM $1`,
      [member, partitions],
    );
    const { rows } = await this.pool.query<TaskRow>(
      "UPDATE tasks t SET status = 'running', attempts = t.attempts + 1, started_at = $3, claimed_by = $1 " +
        "WHERE t.id IN (SELECT id FROM tasks WHERE status = 'pending' AND run_after <= $3 " +
        'AND partition = ANY ($2::int[]) ORDER BY run_after, id LIMIT $4 FOR UPDATE SKIP LOCKED) ' +
        "AND EXISTS (SELECT 1 FROM leases l WHERE l.name = 'partition:' || t.partition AND l.owner = $1 " +
        `AND l.expires_at > botflow_now_ms()) RETURNING ${COLUMNS}`,
      [member, partitions, now, limit],
    );
    return rows.sort((a, b) => a.runAfter - b.runAfter || a.id - b.id);
  }

  /** When the next pending task of `partitions` comes due (ms), if any. */
  async nextRunAfter(partitions: readonly number[]): Promise<number | undefined> {
    if (partitions.length === 0) return undefined;
    const { rows } = await this.pool.query<{ at: number | null }>(
      "SELECT min(run_after) AS at FROM tasks WHERE status = 'pending' AND partition = ANY ($1::int[])",
      [partitions],
    );
    return rows[0]?.at ?? undefined;
  }

  /**
   * Settles a running task and writes its `task_result` event to the conversation's inbox, in one
   * statement. False when the task was cancelled meanwhile (nobody hears of it).
   */
  async finish(
    row: TaskRow,
    finish: { status: 'done'; result: string } | { status: 'failed'; error: string },
    payload: string,
    now: number,
  ): Promise<boolean> {
    const { rows } = await this.pool.query<{ n: number }>(
      // A task done after a failed attempt keeps that attempt's error (shown beside its attempts).
      'WITH settled AS (UPDATE tasks SET status = $2, result = $3, error = COALESCE($4, error), finished_at = $5, ' +
        'claimed_by = NULL ' +
        "WHERE id = $1 AND status = 'running' RETURNING id, partition, conversation_key), added AS (" +
        'INSERT INTO inbox (partition, kind, dedupe_key, conversation_key, payload, received_at) ' +
        "SELECT partition, 'task_result', 'task:' || id, conversation_key, $6, $5 FROM settled " +
        `ON CONFLICT (dedupe_key) DO NOTHING RETURNING pg_notify('${INBOX_CHANNEL}', '')) ` +
        'SELECT count(*)::int AS n FROM settled',
      [
        row.id,
        finish.status,
        finish.status === 'done' ? finish.result : null,
        finish.status === 'failed' ? finish.error : null,
        now,
        payload,
      ],
    );
    return (rows[0]?.n ?? 0) > 0;
  }

  /** A failed attempt to be tried again at `runAfter`; false when the task was cancelled meanwhile. */
  async retryLater(id: number, runAfter: number, error: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      "UPDATE tasks SET status = 'pending', run_after = $2, error = $3, claimed_by = NULL WHERE id = $1 " +
        "AND status = 'running'",
      [id, runAfter, error],
    );
    return rowCount === 1;
  }

  /** One task (a compensation reads the task it compensates). */
  async get(id: number): Promise<TaskRow | undefined> {
    const { rows } = await this.pool.query<TaskRow>(`SELECT ${COLUMNS} FROM tasks WHERE id = $1`, [id]);
    return rows[0];
  }

  /**
   * Records what an attempt of a cancelled task ended with (store/tasks.ts `recordLate`): kept on the row,
   * nobody told, and its compensation may start now.
   */
  async recordLate(row: TaskRow, outcome: { result?: string; error?: string }, now: number): Promise<void> {
    await this.pool.query(
      "WITH late AS (UPDATE tasks SET result = $2, error = coalesce($3, error), claimed_by = NULL WHERE id = $1 AND status = 'cancelled') " +
        "UPDATE tasks SET run_after = least(run_after, $4) WHERE status = 'pending' AND conversation_key = $5 " +
        'AND ref = $6 AND idempotency_key = $7',
      [
        row.id,
        outcome.result ?? null,
        outcome.error ?? null,
        now,
        row.conversationKey,
        `${row.ref}${COMPENSATION_SUFFIX}`,
        row.idempotencyKey,
      ],
    );
  }

  /** The ids among `ids` whose step cancelled them. */
  async cancelled(ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.pool.query<{ id: number }>(
      "SELECT id FROM tasks WHERE id = ANY ($1::bigint[]) AND status = 'cancelled'",
      [ids],
    );
    return rows.map((row) => Number(row.id));
  }
}
