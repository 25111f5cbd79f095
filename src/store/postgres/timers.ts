/**
 * Timers on PostgreSQL: the owner of a partition fires its due timers, turning each into an inbox event
 * in the same statement (one transaction), so a timer fires once whichever process owns it.
 */
import type pg from 'pg';

/** Fires up to `limit` armed timers of `partitions` due at `now`; returns how many fired. */
export async function fireDueTimers(
  pool: pg.Pool,
  partitions: readonly number[],
  now: number,
  limit = 500,
): Promise<number> {
  if (partitions.length === 0) return 0;
  const { rowCount } = await pool.query(
    "WITH due AS (SELECT id FROM timers WHERE status = 'armed' AND fire_at <= $2 AND partition = ANY ($1::int[]) " +
      'ORDER BY fire_at, id LIMIT $3 FOR UPDATE SKIP LOCKED), ' +
      "fired AS (UPDATE timers t SET status = 'fired', settled_at = $2 FROM due WHERE t.id = due.id " +
      'RETURNING t.*) ' +
      'INSERT INTO inbox (partition, kind, dedupe_key, conversation_key, payload, received_at) ' +
      "SELECT partition, 'timer', 'timer:' || id, conversation_key, json_build_object('timerId', id, 'name', name, " +
      "'stepInstance', step_instance, 'dueAt', due_at, 'fireAt', fire_at)::text, $2 FROM fired ORDER BY fire_at, id " +
      'ON CONFLICT (dedupe_key) DO NOTHING',
    [partitions, now, limit],
  );
  return rowCount ?? 0;
}

/** The earliest firing time of an armed timer of `partitions`, if any. */
export async function nextFireAt(pool: pg.Pool, partitions: readonly number[]): Promise<number | undefined> {
  if (partitions.length === 0) return undefined;
  const { rows } = await pool.query<{ at: number | null }>(
    "SELECT min(fire_at) AS at FROM timers WHERE status = 'armed' AND partition = ANY ($1::int[])",
    [partitions],
  );
  return rows[0]?.at ?? undefined;
}
