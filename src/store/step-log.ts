/**
 * The `step_log` table: where conversations went, appended by the step transactions (migrations/006). The
 * funnel (runtime/funnel.ts) reads it back in conversation order and tallies the visits.
 */
import type Database from 'better-sqlite3';

/**
 * One line of the log. `enter`: the session entered `step` (leaving the step before); `finish`: it entered
 * an end step and finished there; `retry`: the step refused `n` answers; `stop`: the session was stopped;
 * `fail`: the flow failed at run time there; `unrecognised`: nothing at the step took a text the person
 * typed, `sample` its first 200 characters (null when the config's `funnel.samples` is false).
 */
export interface StepLogEntry {
  conversationKey: string;
  stepInstance: number;
  sessionRevision: number;
  flowId: string;
  flowVersion: string;
  step: string;
  event: 'enter' | 'finish' | 'retry' | 'stop' | 'fail' | 'unrecognised';
  n: number;
  at: number;
  sample?: string | null;
}

/** A line as the funnel reads it, with whether its session is still the conversation's running one. */
export interface StepLogRow extends Omit<StepLogEntry, 'flowVersion'> {
  sessionActive: boolean;
}

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

/** Queries of the `step_log` table; statements are prepared once. */
export class StepLogStore {
  readonly #db: Database.Database;
  readonly #append: Database.Statement;
  readonly #prune: Database.Statement<[number, number]>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#append = db.prepare(
      'INSERT INTO step_log (conversation_key, step_instance, session_revision, flow_id, flow_version, step, ' +
        'event, n, at, sample) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    // The oldest rows first (ids follow commit order): no index on `at` is needed, none is kept up.
    this.#prune = db.prepare(
      'DELETE FROM step_log WHERE id IN (SELECT id FROM (SELECT id, at FROM step_log ORDER BY id LIMIT ?) ' +
        'WHERE at < ?)',
    );
  }

  append(e: StepLogEntry): void {
    this.#append.run(
      e.conversationKey,
      e.stepInstance,
      e.sessionRevision,
      e.flowId,
      e.flowVersion,
      e.step,
      e.event,
      e.n,
      e.at,
      e.sample ?? null,
    );
  }

  /** Deletes up to `limit` of the oldest lines written before `before`; returns how many. */
  prune(before: number, limit = 2000): number {
    return this.#prune.run(limit, before).changes;
  }

  /**
   * The log of `flowId` (or every flow) since `since`, in conversation order, read as it is consumed (a
   * production log can be long): consume it at once, without awaiting in between (the connection is busy).
   */
  *rows(options: { flowId?: string; since?: number } = {}): Generator<StepLogRow> {
    const params: (string | number)[] = [options.since ?? 0];
    if (options.flowId !== undefined) params.push(options.flowId);
    const rows = this.#db
      .prepare(stepLogSql(() => '?', options.flowId !== undefined))
      .iterate(...params) as Iterable<RawLine>;
    for (const line of rows) yield lineOf(line);
  }
}
