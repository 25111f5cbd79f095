/**
 * The `step_log` table: where conversations went, appended by the step transactions (migrations/006). The
 * funnel (runtime/funnel.ts) reads it back in conversation order and tallies the visits.
 */
import type Database from 'better-sqlite3';

/**
 * One line of the log. `enter`: the session entered `step` (leaving the step before); `finish`: it entered
 * an end step and finished there; `retry`: the step refused `n` answers; `stop`: the session was stopped.
 */
export interface StepLogEntry {
  conversationKey: string;
  stepInstance: number;
  sessionRevision: number;
  flowId: string;
  flowVersion: string;
  step: string;
  event: 'enter' | 'finish' | 'retry' | 'stop';
  n: number;
  at: number;
}

/** A line as the funnel reads it, with whether its session is still the conversation's running one. */
export interface StepLogRow extends Omit<StepLogEntry, 'flowVersion'> {
  sessionActive: boolean;
}

/**
 * The log of one flow (or all) since `since` (ms), in conversation order then commit order. Both stores
 * read with this text (PostgreSQL numbers its parameters).
 */
export function stepLogSql(placeholder: (n: number) => string, flow: boolean): string {
  return (
    'SELECT l.conversation_key AS "conversationKey", l.step_instance AS "stepInstance", ' +
    'l.session_revision AS "sessionRevision", l.flow_id AS "flowId", l.step, l.event, l.n, l.at, ' +
    "CASE WHEN s.status = 'active' AND s.started_revision = l.session_revision THEN 1 ELSE 0 END " +
    'AS "sessionActive" FROM step_log l LEFT JOIN sessions s ON s.conversation_key = l.conversation_key ' +
    `WHERE l.at >= ${placeholder(1)}${flow ? ` AND l.flow_id = ${placeholder(2)}` : ''} ` +
    'ORDER BY l.conversation_key, l.id'
  );
}

/** Queries of the `step_log` table; statements are prepared once. */
export class StepLogStore {
  readonly #db: Database.Database;
  readonly #append: Database.Statement;
  readonly #prune: Database.Statement<[number, number]>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#append = db.prepare(
      'INSERT INTO step_log (conversation_key, step_instance, session_revision, flow_id, flow_version, step, ' +
        'event, n, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
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
    );
  }

  /** Deletes up to `limit` of the oldest lines written before `before`; returns how many. */
  prune(before: number, limit = 2000): number {
    return this.#prune.run(limit, before).changes;
  }

  /** The log of `flowId` (or every flow) since `since`, in conversation order. */
  rows(options: { flowId?: string; since?: number } = {}): StepLogRow[] {
    const params: (string | number)[] = [options.since ?? 0];
    if (options.flowId !== undefined) params.push(options.flowId);
    const rows = this.#db
      .prepare(stepLogSql(() => '?', options.flowId !== undefined))
      .all(...params) as (Omit<StepLogRow, 'sessionActive'> & { sessionActive: number })[];
    return rows.map((r) => ({ ...r, sessionActive: r.sessionActive === 1 }));
  }
}
