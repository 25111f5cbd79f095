/**
 * The `step_log` table: where conversations went, appended by the step transactions (migrations/006). The
 * funnel (runtime/funnel.ts) reads it back in conversation order and tallies the visits.
 */
import type Database from 'better-sqlite3';
import type { StepLogEntry, StepLogRow } from './ports/rows.ts';

export type { StepLogEntry, StepLogRow } from './ports/rows.ts';

import { lineOf, type RawLine, stepLogSql } from './ports/queries.ts';

export { lineOf, type RawLine, stepLogSql } from './ports/queries.ts';

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
