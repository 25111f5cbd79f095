/**
 * The `flow_versions` table: every (flow id, version) the engine has loaded, with what it was built from
 * when the flow has a source, so that after a restart sessions pinned to a version nobody loads any
 * more can be rebuilt, or else found and reported clearly.
 */
import type Database from 'better-sqlite3';
import type { FlowVersionRow, FlowVersionSource } from './ports/rows.ts';

export type { FlowVersionRow, FlowVersionSource } from './ports/rows.ts';

/** Queries of the `flow_versions` table. */
export class FlowVersionStore {
  readonly #record: Database.Statement<[string, string, number, number, string | null]>;
  readonly #all: Database.Statement<[], FlowVersionRow>;
  readonly #source: Database.Statement<[string, string], { source: string | null }>;

  constructor(db: Database.Database) {
    this.#record = db.prepare(
      'INSERT INTO flow_versions (flow_id, version, first_loaded_at, last_loaded_at, source) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT (flow_id, version) DO UPDATE SET last_loaded_at = excluded.last_loaded_at, ' +
        'source = coalesce(excluded.source, flow_versions.source)',
    );
    this.#all = db.prepare(
      'SELECT flow_id AS flowId, version, first_loaded_at AS firstLoadedAt, last_loaded_at AS lastLoadedAt ' +
        'FROM flow_versions ORDER BY flow_id, first_loaded_at',
    );
    this.#source = db.prepare('SELECT source FROM flow_versions WHERE flow_id = ? AND version = ?');
  }

  /**
   * Records that `version` of `flowId` was loaded at `now`, with its `source` when it has one (a later
   * record without a source keeps the stored one).
   */
  record(flowId: string, version: string, now: number, source?: string): void {
    this.#record.run(flowId, version, now, now, source ?? null);
  }

  /** Every version ever loaded, oldest first per flow. */
  all(): FlowVersionRow[] {
    return this.#all.all();
  }

  /** The stored sources of the given versions; versions without one (or never recorded) are left out. */
  sources(versions: readonly { flowId: string; version: string }[]): FlowVersionSource[] {
    const out: FlowVersionSource[] = [];
    for (const { flowId, version } of versions) {
      const source = this.#source.get(flowId, version)?.source;
      if (typeof source === 'string') out.push({ flowId, version, source });
    }
    return out;
  }
}
