/**
 * The handoff queue (docs/handoff.md), read from the sessions themselves: a request waits while its
 * session is active at a `handoff` step with the request open (`vars.handoff.open`) and nobody took it
 * (no `vars.handoff.operator`). Nothing else is written: what the sessions hold is the queue, on both
 * stores (PostgreSQL: postgres/handoff-queue.ts).
 */
import type Database from 'better-sqlite3';

/** A `handoff` step of a flow: where its sessions wait for an operator. */
export interface HandoffStepRef {
  flowId: string;
  step: string;
}

/** The `state_value` a session has at the top-level step `step` (JSON of the XState state value). */
export const stateValueOf = (step: string): string => JSON.stringify(step);

/**
 * The predicate of the partial index `sessions_handoff_waiting` (migrations 009, postgres/007): a query
 * repeats it to read the index, which holds the waiting sessions only; the JSON tests that follow are the
 * truth.
 */
export const WAITING_INDEXED = `status = 'active' AND snapshot LIKE '%"handoff":{"open":true}%'`;

/** Counts the sessions waiting, untaken, at one of `steps` (SQLite). */
export function sqliteWaitingHandoffs(db: Database.Database): (steps: readonly HandoffStepRef[]) => number {
  const count = db.prepare<[string, string], { n: number }>(
    `SELECT count(*) AS n FROM sessions WHERE ${WAITING_INDEXED} AND flow_id = ? AND state_value = ? ` +
      "AND json_extract(snapshot, '$.context.vars.handoff.open') = 1 " +
      "AND json_extract(snapshot, '$.context.vars.handoff.operator') IS NULL",
  );
  return (steps) => steps.reduce((n, s) => n + (count.get(s.flowId, stateValueOf(s.step))?.n ?? 0), 0);
}
