/** The handoff queue on PostgreSQL (see ../handoff-queue.ts): read from the sessions, one query. */
import type pg from 'pg';
import { stateValueOf, WAITING_INDEXED } from '../ports/queries.ts';
import type { HandoffStepRef } from '../ports/rows.ts';

/** Counts the sessions waiting, untaken, at one of `steps`. */
export async function pgWaitingHandoffs(pool: pg.Pool, steps: readonly HandoffStepRef[]): Promise<number> {
  if (steps.length === 0) return 0;
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM sessions
      WHERE ${WAITING_INDEXED}
        AND (flow_id, state_value) IN (SELECT * FROM unnest($1::text[], $2::text[]))
        AND (snapshot::jsonb #> '{context,vars,handoff,open}') = 'true'::jsonb
        AND (snapshot::jsonb #> '{context,vars,handoff,operator}') IS NULL`,
    [steps.map((s) => s.flowId), steps.map((s) => stateValueOf(s.step))],
  );
  return Number(rows[0]?.n ?? 0);
}
