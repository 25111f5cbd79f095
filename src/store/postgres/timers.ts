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

/** The grace rule's parameters (see engine/timers.ts): how late is still on time, too late, and the spread. */
export interface PgTimerGrace {
  toleranceMs: number;
  maxLateMs: number;
  perSecond: number;
}

/**
 * The grace rule for timers of `partitions` that came due while no process ran them (a process taking
 * partitions applies it): those late by more than `toleranceMs` are spread out from now at `perSecond`,
 * those late by more than `maxLateMs` expire. One statement; returns what it did.
 */
export async function applyTimerGrace(
  pool: pg.Pool,
  partitions: readonly number[],
  now: number,
  grace: PgTimerGrace,
): Promise<{ postponed: number; expired: number }> {
  if (partitions.length === 0) return { postponed: 0, expired: 0 };
  const { rows } = await pool.query<{ postponed: number; expired: number }>(
    'WITH p AS (SELECT $2::bigint AS now, $3::bigint AS tolerance, $4::bigint AS max_late, $5::float8 AS rate), ' +
      'late AS (SELECT t.id, row_number() OVER (ORDER BY t.fire_at, t.id) - 1 AS k FROM timers t, p ' +
      "WHERE t.status = 'armed' AND t.partition = ANY ($1::int[]) AND t.fire_at < p.now - p.tolerance " +
      'AND t.fire_at >= p.now - p.max_late), ' +
      "expired AS (UPDATE timers t SET status = 'expired', settled_at = p.now, reason = 'came due ' || " +
      "round((p.now - t.fire_at) / 60000.0) || ' min before a process took its partition' FROM p " +
      "WHERE t.status = 'armed' AND t.partition = ANY ($1::int[]) AND t.fire_at < p.now - p.max_late RETURNING t.id), " +
      'postponed AS (UPDATE timers t SET fire_at = p.now + floor(late.k * 1000 / p.rate)::bigint FROM late, p ' +
      'WHERE t.id = late.id RETURNING t.id) ' +
      'SELECT (SELECT count(*) FROM postponed)::int AS postponed, (SELECT count(*) FROM expired)::int AS expired',
    [partitions, now, grace.toleranceMs, grace.maxLateMs, grace.perSecond],
  );
  return rows[0] ?? { postponed: 0, expired: 0 };
}
