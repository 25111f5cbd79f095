/**
 * The handoff queue (docs/handoff.md), read from the sessions themselves: a request waits while its
 * session is active at a `handoff` step with the request open (`vars.handoff.open`) and nobody took it
 * (no `vars.handoff.operator`). Nothing else is written: what the sessions hold is the queue, on both
 * stores (PostgreSQL: postgres/handoff-queue.ts).
 */
import type Database from 'better-sqlite3';
import type { HandoffStepRef } from './ports/rows.ts';

export type { HandoffStepRef } from './ports/rows.ts';

import { stateValueOf, WAITING_INDEXED } from './ports/queries.ts';

export { stateValueOf, WAITING_INDEXED } from './ports/queries.ts';

/** Counts the sessions waiting, untaken, at one of `steps` (SQLite). */
export function sqliteWaitingHandoffs(db: Database.Database): (steps: readonly HandoffStepRef[]) => number {
  const count = db.prepare<[string, string], { n: number }>(
    `SELECT count(*) AS n FROM sessions WHERE ${WAITING_INDEXED} AND flow_id = ? AND state_value = ? ` +
      "AND json_extract(snapshot, '$.context.vars.handoff.open') = 1 " +
      "AND json_extract(snapshot, '$.context.vars.handoff.operator') IS NULL",
  );
  return (steps) => steps.reduce((n, s) => n + (count.get(s.flowId, stateValueOf(s.step))?.n ?? 0), 0);
}
