/**
 * The support side of the PostgreSQL store (ports/support.ts): the SQLite stores' support queries, with
 * each hand-made change (an end, a jump) in one transaction. A jump's event is announced to the process
 * owning the conversation's partition (the inbox channel).
 */
import type pg from 'pg';
import { partitionOf } from '../ports/partitions.ts';
import type { InboxHistoryRow, SessionSummary, TimerRow } from '../ports/rows.ts';
import type { ConversationRows, PlacedSession, SupportPort } from '../ports/support.ts';
import { PgOutbox } from './outbox.ts';
import { pgPlanSources, pgSession, pgStepLog } from './sessions.ts';
import { inTransaction } from './transaction.ts';

const SUMMARY_COLUMNS =
  'conversation_key AS "conversationKey", flow_id AS "flowId", flow_version AS "flowVersion", status, ' +
  'state_value AS "stateValue", revision, step_instance AS "stepInstance", ' +
  'started_revision AS "startedRevision", chat_id AS "chatId", user_id AS "userId", locale, ' +
  'started_at AS "startedAt", updated_at AS "updatedAt"';
const TIMER_COLUMNS =
  'id, conversation_key AS "conversationKey", name, due_at AS "dueAt", fire_at AS "fireAt", ' +
  'step_instance AS "stepInstance", armed_revision AS "armedRevision", status, reason, armed_at AS "armedAt", ' +
  'settled_at AS "settledAt"';
const OUTBOX_COLUMNS =
  'id, conversation_key AS "conversationKey", revision, seq, order_key AS "orderKey", chat_id AS "chatId", ' +
  'kind, op, args, ref, priority, idempotency_key AS "idempotencyKey", status, attempts, result, error, ' +
  'created_at AS "createdAt", sent_at AS "sentAt", finished_at AS "finishedAt"';
const TASK_COLUMNS =
  'id, conversation_key AS "conversationKey", revision, step_instance AS "stepInstance", name, ref, input, ' +
  'scope, policy, chat_id AS "chatId", idempotency_key AS "idempotencyKey", status, attempts, ' +
  'run_after AS "runAfter", result, error, created_at AS "createdAt", started_at AS "startedAt", ' +
  'finished_at AS "finishedAt"';
const HISTORY_COLUMNS =
  'id, kind, conversation_key AS "conversationKey", payload, received_at AS "receivedAt", ' +
  'dedupe_key AS "dedupeKey", update_type AS "updateType", attempts, status, error, processed_at AS "processedAt"';

/** Timers cancelled, unsent calls dropped and tasks cancelled (with their compensations), for `reason`. */
async function endWhatRuns(client: pg.PoolClient, key: string, reason: string, now: number): Promise<void> {
  await client.query(
    "UPDATE timers SET status = 'cancelled', reason = $2, settled_at = $3 WHERE conversation_key = $1 " +
      "AND status = 'armed'",
    [key, reason, now],
  );
  await client.query(
    "UPDATE outbox SET status = 'dropped', error = $2, finished_at = $3 WHERE conversation_key = $1 " +
      "AND status = 'pending'",
    [key, reason, now],
  );
  await client.query('SELECT botflow_cancel_tasks($1, NULL, $2, $3, $4)', [
    key,
    reason,
    now,
    partitionOf(key),
  ]);
}

/**
 * Timers moved by hand: the instance owning the conversation's partition hears it on the inbox channel,
 * finds no event, and so reads its next timer again (it fires the moved ones when due).
 */
async function announceTimers(pool: pg.Pool): Promise<void> {
  await pool.query(`SELECT pg_notify(botflow_channel('inbox'), '')`);
}

/** Sessions by status, flow and age, the most recently updated first. */
async function listSessions(pool: pg.Pool, query: Parameters<SupportPort<false>['listSessions']>[0]) {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(`${sql} $${params.length}`);
  };
  if (query.status) add('status =', query.status);
  if (query.flowId) add('flow_id =', query.flowId);
  if (query.updatedBefore !== undefined) add('updated_at <', query.updatedBefore);
  params.push(Math.min(Math.max(1, Math.trunc(query.limit ?? 50)), 1000));
  const { rows } = await pool.query<SessionSummary>(
    `SELECT ${SUMMARY_COLUMNS} FROM sessions${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ` +
      `ORDER BY updated_at DESC, conversation_key COLLATE "C" LIMIT $${params.length}`,
    params,
  );
  return rows;
}

/**
 * A conversation's session, its armed timers, and its latest calls and tasks, read in one snapshot
 * (REPEATABLE READ, read only): a step's commit lands in all of them or in none, so the side panel never
 * shows a step's timers beside the session from before it.
 */
async function conversationOf(
  pool: pg.Pool,
  key: string,
  recent: number,
): Promise<ConversationRows | undefined> {
  return inTransaction(pool, async (client) => {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const session = await pgSession(client, key);
    if (!session) return undefined;
    const timers = await client.query<TimerRow>(
      `SELECT ${TIMER_COLUMNS} FROM timers WHERE conversation_key = $1 AND status = 'armed' ORDER BY id DESC`,
      [key],
    );
    const calls = await client.query(
      `SELECT ${OUTBOX_COLUMNS} FROM outbox WHERE conversation_key = $1 ORDER BY id DESC LIMIT $2`,
      [key, recent],
    );
    const tasks = await client.query(
      `SELECT ${TASK_COLUMNS} FROM tasks WHERE conversation_key = $1 ORDER BY id DESC LIMIT $2`,
      [key, recent],
    );
    return { session, timers: timers.rows, calls: calls.rows, tasks: tasks.rows };
  });
}

/**
 * A session placed at a step (a designer's jump, or a new one), its entry in the step log, and the jump's
 * inbox entry announced on the inbox channel.
 */
async function placeSession(
  client: pg.PoolClient,
  p: PlacedSession,
  now: number,
  jump: Parameters<SupportPort<false>['placeSession']>[2],
): Promise<number> {
  const key = p.conversationKey;
  if (jump) await endWhatRuns(client, key, jump.reason, now);
  const { rows } = await client.query<{ revision: number }>(
    'INSERT INTO sessions AS s (conversation_key, flow_id, flow_version, status, state_value, snapshot, ' +
      'revision, step_instance, started_revision, chat_id, user_id, locale, started_at, updated_at) ' +
      "VALUES ($1, $2, $3, 'active', $4, $5, 1, 1, 1, $6, $7, $8, $9, $9) ON CONFLICT (conversation_key) " +
      "DO UPDATE SET flow_id = $2, flow_version = $3, status = 'active', state_value = $4, snapshot = $5, " +
      'revision = s.revision + 1, step_instance = s.revision + 1, started_revision = s.revision + 1, ' +
      'chat_id = $6, user_id = $7, locale = $8, started_at = $9, updated_at = $9 RETURNING s.revision',
    [key, p.flowId, p.flowVersion, p.stateValue, p.snapshot, p.chatId, p.userId, p.locale, now],
  );
  const revision = rows[0]!.revision;
  // The funnel sees a new session on the step (a jump is a session of its own).
  await client.query(
    'INSERT INTO step_log (conversation_key, step_instance, session_revision, flow_id, flow_version, ' +
      "step, event, n, at) VALUES ($1, $2, $2, $3, $4, $5, 'enter', 1, $6)",
    [key, revision, p.flowId, p.flowVersion, p.step, now],
  );
  if (jump)
    await client.query(
      'INSERT INTO inbox (partition, kind, dedupe_key, conversation_key, payload, received_at) ' +
        `VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (dedupe_key) DO NOTHING`,
      [partitionOf(key), jump.kind, `jump:${key}:${revision}`, key, jump.payload, now],
    );
  if (jump) await client.query(`SELECT pg_notify(botflow_channel('inbox'), '')`);
  return revision;
}

/** Support over `pool` (migrations applied). */
export function pgSupport(pool: pg.Pool): SupportPort<false> {
  const outbox = new PgOutbox(pool);
  return {
    listSessions: (query) => listSessions(pool, query),
    conversation: (key, recent) => conversationOf(pool, key, recent),
    async history(key, limit, beforeId = Number.MAX_SAFE_INTEGER) {
      const { rows } = await pool.query<InboxHistoryRow>(
        `SELECT ${HISTORY_COLUMNS} FROM inbox WHERE conversation_key = $1 AND id < $2 ORDER BY id DESC LIMIT $3`,
        [key, beforeId, Math.min(Math.max(1, Math.trunc(limit)), 1000)],
      );
      return rows;
    },
    endSession: (key, reason, now) =>
      inTransaction(pool, async (client) => {
        const { rowCount } = await client.query(
          "UPDATE sessions SET status = 'stopped', revision = revision + 1, updated_at = $2 " +
            "WHERE conversation_key = $1 AND status = 'active'",
          [key, now],
        );
        if (rowCount !== 1) return false;
        await endWhatRuns(client, key, reason, now);
        return true;
      }),
    deadLetters: (limit) => outbox.failed(limit),
    retryDeadLetters: (ids) => outbox.retryFailed(ids),
    dropDeadLetters: (ids, now) => outbox.dropFailed(ids, now),
    async bringTimersForward(key, ms, now) {
      const { rowCount } = await pool.query(
        'UPDATE timers SET fire_at = greatest(fire_at - $2, $3) WHERE conversation_key = $1 ' +
          "AND status = 'armed'",
        [key, ms, now],
      );
      if (rowCount) await announceTimers(pool);
      return rowCount ?? 0;
    },
    async fireTimerNow(key, timerId, now) {
      const { rowCount } = await pool.query(
        "UPDATE timers SET fire_at = $3 WHERE id = $1 AND conversation_key = $2 AND status = 'armed'",
        [timerId, key, now],
      );
      if (rowCount) await announceTimers(pool);
      return rowCount === 1;
    },
    placeSession: (p: PlacedSession, now, jump) =>
      inTransaction(pool, (client) => placeSession(client, p, now, jump)),
    planSources: (latest) => pgPlanSources(pool, latest),
    stepLog: (query) => pgStepLog(pool, query),
  };
}
