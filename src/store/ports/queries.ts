/**
 * Query texts and row mappings that both adapters use as they are (PostgreSQL numbers its parameters): the
 * step log's read, and the handoff queue's predicate.
 */
import type { StepLogRow } from './rows.ts';

/**
 * The log of one flow (or all) since `since` (ms), in conversation order then commit order, with each
 * line's id. Both stores read with this text (PostgreSQL numbers its parameters). `page`: only the lines
 * after a (conversation, id) given as the next two parameters, `limit` of them (keyset paging).
 */
export function stepLogSql(
  placeholder: (n: number) => string,
  flow: boolean,
  page?: { after: boolean; limit: number },
): string {
  let n = 1;
  const next = () => placeholder(n++);
  const since = `l.at >= ${next()}`;
  const ofFlow = flow ? ` AND l.flow_id = ${next()}` : '';
  const after = page?.after ? ` AND (l.conversation_key, l.id) > (${next()}, ${next()})` : '';
  return (
    'SELECT l.id, l.conversation_key AS "conversationKey", l.step_instance AS "stepInstance", ' +
    'l.session_revision AS "sessionRevision", l.flow_id AS "flowId", l.step, l.event, l.n, l.at, l.sample, ' +
    "CASE WHEN s.status = 'active' AND s.started_revision = l.session_revision THEN 1 ELSE 0 END " +
    'AS "sessionActive" FROM step_log l LEFT JOIN sessions s ON s.conversation_key = l.conversation_key ' +
    `WHERE ${since}${ofFlow}${after} ORDER BY l.conversation_key, l.id` +
    (page ? ` LIMIT ${Math.floor(page.limit)}` : '')
  );
}

/** A line as read: with its id, `sessionActive` as 0 or 1. */
export type RawLine = Omit<StepLogRow, 'sessionActive'> & { id: number; sessionActive: number };

/** A line as the funnel reads it; `sample` only on lines that have one. */
export const lineOf = ({ id: _id, sessionActive, sample, ...line }: RawLine): StepLogRow => ({
  ...line,
  ...(typeof sample === 'string' ? { sample } : {}),
  sessionActive: sessionActive === 1,
});

/** The `state_value` a session has at the top-level step `step` (JSON of the XState state value). */
export const stateValueOf = (step: string): string => JSON.stringify(step);

/**
 * The predicate of the partial index `sessions_handoff_waiting` (migrations 009, postgres/007): a query
 * repeats it to read the index, which holds the waiting sessions only; the JSON tests that follow are the
 * truth.
 */
export const WAITING_INDEXED = `status = 'active' AND snapshot LIKE '%"handoff":{"open":true}%'`;
