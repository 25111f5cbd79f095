/**
 * Keeping a PostgreSQL database from growing without end: settled inbox rows, finished outbox rows, timers
 * and tasks, and old lines of the step log are deleted in chunks. Any process may prune; chunks of several processes
 * at once only overlap (a row is deleted once).
 */
import type pg from 'pg';

/** What to delete: rows settled (step log lines written) before these times (ms). */
export interface PruneBefore {
  inbox: number;
  settled: number;
  stepLog: number;
}

const CHUNK = 5000;

const STATEMENTS = {
  inbox:
    "DELETE FROM inbox WHERE id IN (SELECT id FROM inbox WHERE received_at < $1 AND status <> 'pending' LIMIT $2)",
  outbox:
    'DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE finished_at < $1 ' +
    "AND status IN ('done', 'failed', 'dropped') LIMIT $2)",
  timers:
    "DELETE FROM timers WHERE id IN (SELECT id FROM timers WHERE status <> 'armed' AND settled_at < $1 LIMIT $2)",
  tasks:
    'DELETE FROM tasks WHERE id IN (SELECT id FROM tasks WHERE finished_at < $1 ' +
    "AND status IN ('done', 'failed', 'cancelled') LIMIT $2)",
  // The oldest lines first (ids follow commit order closely enough): no index on `at` to keep up.
  stepLog:
    'DELETE FROM step_log WHERE id IN (SELECT id FROM (SELECT id, at FROM step_log ORDER BY id LIMIT $2) o ' +
    'WHERE at < $1)',
} as const;

/** Deletes what is older than `before`, chunk by chunk; returns how many rows of each table. */
export async function pgPrune(
  pool: pg.Pool,
  before: PruneBefore,
): Promise<Record<keyof typeof STATEMENTS, number>> {
  const removed = { inbox: 0, outbox: 0, timers: 0, tasks: 0, stepLog: 0 };
  const horizon = {
    inbox: before.inbox,
    outbox: before.settled,
    timers: before.settled,
    tasks: before.settled,
    stepLog: before.stepLog,
  };
  for (const table of Object.keys(STATEMENTS) as (keyof typeof STATEMENTS)[]) {
    for (;;) {
      const { rowCount } = await pool.query(STATEMENTS[table], [horizon[table], CHUNK]);
      removed[table] += rowCount ?? 0;
      if ((rowCount ?? 0) === 0 || (table !== 'stepLog' && (rowCount ?? 0) < CHUNK)) break;
    }
  }
  return removed;
}
