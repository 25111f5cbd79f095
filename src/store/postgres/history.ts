/**
 * Past traffic of a PostgreSQL database, read-only (the SQLite HistoryStore's queries): the updates kept
 * in the inbox, the calls settled in the outbox, when sessions started. `botflow replay --database-url`.
 */
import type pg from 'pg';
import type { HistoryData, SettledCall, StoredUpdate } from '../ports/rows.ts';

/** Everything a recording is built from, for one conversation or all. */
export async function pgHistory(pool: pg.Pool, conversation?: string): Promise<HistoryData> {
  const where = conversation === undefined ? '' : ' AND conversation_key = $1';
  const params = conversation === undefined ? [] : [conversation];
  const updates = await pool.query<StoredUpdate>(
    'SELECT payload, received_at AS at, kind, conversation_key AS "conversationKey" FROM inbox ' +
      `WHERE kind IN ('update', 'event')${where} ORDER BY id`,
    params,
  );
  const calls = await pool.query<SettledCall>(
    'SELECT op, kind, args, result, status, error, created_at AS at FROM outbox ' +
      `WHERE status IN ('done', 'failed')${where} ORDER BY id`,
    params,
  );
  const firstKept = await pool.query<{ k: string; at: number }>(
    `SELECT conversation_key AS k, min(received_at) AS at FROM inbox WHERE kind = 'update'${where} GROUP BY k`,
    params,
  );
  const starts = await pool.query<{ k: string; at: number }>(
    `SELECT conversation_key AS k, started_at AS at FROM sessions WHERE true${where}`,
    params,
  );
  return {
    updates: updates.rows,
    settledCalls: calls.rows,
    firstKeptUpdate: new Map(firstKept.rows.map((r) => [r.k, r.at])),
    sessionStarts: new Map(starts.rows.map((r) => [r.k, r.at])),
  };
}
