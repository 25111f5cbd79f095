/**
 * The `flow_versions` table: every (flow id, version) the engine has loaded, so that after a restart
 * sessions pinned to a version nobody loaded any more are found and reported clearly.
 */
import type Database from 'better-sqlite3';

/** A flow version as recorded. */
export interface FlowVersionRow {
  flowId: string;
  version: string;
  firstLoadedAt: number;
  lastLoadedAt: number;
}

/** Queries of the `flow_versions` table. */
export class FlowVersionStore {
  readonly #record: Database.Statement<[string, string, number, number]>;
  readonly #all: Database.Statement<[], FlowVersionRow>;

  constructor(db: Database.Database) {
    this.#record = db.prepare(
      'INSERT INTO flow_versions (flow_id, version, first_loaded_at, last_loaded_at) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (flow_id, version) DO UPDATE SET last_loaded_at = excluded.last_loaded_at',
    );
    this.#all = db.prepare(
      'SELECT flow_id AS flowId, version, first_loaded_at AS firstLoadedAt, last_loaded_at AS lastLoadedAt ' +
        'FROM flow_versions ORDER BY flow_id, first_loaded_at',
    );
  }

  /** Records that `version` of `flowId` was loaded at `now`. */
  record(flowId: string, version: string, now: number): void {
    this.#record.run(flowId, version, now, now);
  }

  /** Every version ever loaded, oldest first per flow. */
  all(): FlowVersionRow[] {
    return this.#all.all();
  }
}
