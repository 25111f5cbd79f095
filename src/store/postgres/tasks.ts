/**
 * Durable tasks on PostgreSQL. A task belongs to its conversation's partition and runs in the process that
 * owns it: claims check the partition lease in the same statement and record the claimer. An attempt a dead
 * process left `running` (its member gone) is made pending again by the partition's next owner, so each
 * attempt runs once across processes; one that a live process still runs stays with it.
 */
import type pg from 'pg';
import {
  type AttemptEnd,
  COMPENSATION_SUFFIX,
  type LateOutcome,
  type Partitions,
  type Recorded,
  type TaskPort,
  type TaskRow,
} from '../ports/tasks.ts';
import { SESSION_GONE } from './leases.ts';
import { inTransaction } from './transaction.ts';

/** The pool or one of its clients (inside a transaction). */
type Queryable = Pick<pg.PoolClient, 'query'>;

const COLUMNS =
  'id, conversation_key AS "conversationKey", revision, step_instance AS "stepInstance", name, ref, input, ' +
  'scope, policy, chat_id AS "chatId", idempotency_key AS "idempotencyKey", status, attempts, ' +
  'run_after AS "runAfter", result, error, created_at AS "createdAt", started_at AS "startedAt", ' +
  'finished_at AS "finishedAt"';

/** A live member other than `$1` claimed it (one whose session is gone is dead: leases.ts). */
const CLAIMED_BY_OTHER_LIVE =
  'EXISTS (SELECT 1 FROM members m WHERE m.id = t.claimed_by AND m.id <> $1 AND m.expires_at > botflow_now_ms() ' +
  `AND NOT (${SESSION_GONE}))`;

/** `partition = ANY ($n)`, or nothing for every partition. */
const inPartitions = (partitions: Partitions, n: number) =>
  partitions === 'all' ? '' : ` AND partition = ANY ($${n}::int[])`;
const partitionsParam = (partitions: Partitions) => (partitions === 'all' ? [] : [partitions]);
const none = (partitions: Partitions) => partitions !== 'all' && partitions.length === 0;

/**
 * The task queries of one process (`member`), the task runner's port on PostgreSQL. `'all'` partitions
 * means every partition this process holds the lease of: a claim always checks the lease.
 */
export class PgTasks implements TaskPort {
  constructor(
    readonly pool: pg.Pool,
    readonly member: string,
  ) {}

  get open(): boolean {
    return !(this.pool as { ending?: boolean }).ending;
  }

  /**
   * Running tasks of `partitions` whose process is gone (no live member claimed them, and not this one)
   * are pending again; `runningHere` is known by member here. Returns how many.
   */
  async recover(partitions: Partitions, _runningHere: readonly number[] = []): Promise<number> {
    if (none(partitions)) return 0;
    const { rowCount } = await this.pool.query(
      "UPDATE tasks t SET status = 'pending', claimed_by = NULL WHERE status = 'running' " +
        `AND NOT ${CLAIMED_BY_OTHER_LIVE} AND t.claimed_by IS DISTINCT FROM $1${inPartitions(partitions, 2)}`,
      [this.member, ...partitionsParam(partitions)],
    );
    return rowCount ?? 0;
  }

  /** Starts (attempt counted) up to `limit` due tasks of `partitions` that this process holds the leases of. */
  async claimDue(partitions: Partitions, now: number, limit: number, db: Queryable = this.pool) {
    if (none(partitions) || limit <= 0) return [];
    const { rows } = await db.query<TaskRow>(
      "UPDATE tasks t SET status = 'running', attempts = t.attempts + 1, started_at = $2, claimed_by = $1 " +
        "WHERE t.id IN (SELECT id FROM tasks WHERE status = 'pending' AND run_after <= $2" +
        `${inPartitions(partitions, 4)} ORDER BY run_after, id LIMIT $3 FOR UPDATE SKIP LOCKED) ` +
        "AND EXISTS (SELECT 1 FROM leases l WHERE l.name = 'partition:' || t.partition AND l.owner = $1 " +
        `AND l.expires_at > botflow_now_ms()) RETURNING ${COLUMNS}`,
      [this.member, now, limit, ...partitionsParam(partitions)],
    );
    return rows.sort((a, b) => a.runAfter - b.runAfter || a.id - b.id);
  }

  /** When the next pending task of `partitions` comes due (ms), if any. */
  async nextRunAfter(partitions: Partitions): Promise<number | undefined> {
    if (none(partitions)) return undefined;
    const { rows } = await this.pool.query<{ at: number | null }>(
      `SELECT min(run_after) AS at FROM tasks WHERE status = 'pending'${inPartitions(partitions, 1)}`,
      partitionsParam(partitions),
    );
    return rows[0]?.at ?? undefined;
  }

  /** Records ended attempts in one transaction (see `TaskPort.record`), then claims with `claim`. */
  async record(
    ends: readonly AttemptEnd[],
    now: number,
    claim?: { partitions: Partitions; limit: number },
  ): Promise<{ recorded: Recorded[]; claimed: TaskRow[] }> {
    return inTransaction(this.pool, async (client) => {
      const recorded: Recorded[] = [];
      for (const end of ends) recorded.push(await this.#recordOne(client, end, now));
      const claimed = claim ? await this.claimDue(claim.partitions, now, claim.limit, client) : [];
      return { recorded, claimed };
    });
  }

  async #recordOne(db: Queryable, end: AttemptEnd, now: number): Promise<Recorded> {
    if (end.kind === 'aborted') {
      await this.#recordLate(db, end.row, {}, now); // aborted: only that it ended
      return 'cancelled';
    }
    if (end.kind === 'retry') {
      if (await this.#retryLater(db, end.row.id, end.runAfter, end.error)) return 'retry';
    } else if (await this.#finish(db, end.row, end.finish, end.payload, now)) return 'settled';
    await this.#recordLate(db, end.row, end.late, now); // cancelled meanwhile: kept, nobody told
    return 'cancelled';
  }

  /**
   * Settles a running task and writes its `task_result` event to the conversation's inbox, in one
   * statement. False when the task was cancelled meanwhile (nobody hears of it).
   */
  async #finish(
    db: Queryable,
    row: TaskRow,
    finish: { status: 'done'; result: string } | { status: 'failed'; error: string },
    payload: string,
    now: number,
  ): Promise<boolean> {
    const { rows } = await db.query<{ n: number }>(
      // A task done after a failed attempt keeps that attempt's error (shown beside its attempts).
      'WITH settled AS (UPDATE tasks SET status = $2, result = $3, error = COALESCE($4, error), finished_at = $5, ' +
        'claimed_by = NULL ' +
        "WHERE id = $1 AND status = 'running' RETURNING id, partition, conversation_key), added AS (" +
        'INSERT INTO inbox (partition, kind, dedupe_key, conversation_key, payload, received_at) ' +
        "SELECT partition, 'task_result', 'task:' || id, conversation_key, $6, $5 FROM settled " +
        `ON CONFLICT (dedupe_key) DO NOTHING RETURNING pg_notify(botflow_channel('inbox'), '')) ` +
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
  async #retryLater(db: Queryable, id: number, runAfter: number, error: string): Promise<boolean> {
    const { rowCount } = await db.query(
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
  async #recordLate(db: Queryable, row: TaskRow, outcome: LateOutcome, now: number): Promise<void> {
    await db.query(
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
