/**
 * Read-only queries over what a database holds of past traffic: the updates kept in the inbox, the calls
 * settled in the outbox, and when sessions started. Recordings (`botflow replay --db`, `--record`) and the
 * transcript harness read through it; nothing here writes.
 */
import type Database from 'better-sqlite3';
import type { OutboxEntry, SettledCall, StoredUpdate } from './ports/rows.ts';

export type { HistoryData, OutboxEntry, SettledCall, StoredUpdate } from './ports/rows.ts';

/** Past traffic of one database, optionally narrowed to one conversation. */
export class HistoryStore {
  readonly #db: Database.Database;
  readonly #where: string;
  readonly #params: string[];
  #outboxAfter: Database.Statement<[number], OutboxEntry> | undefined;

  constructor(db: Database.Database, conversation?: string) {
    this.#db = db;
    this.#where = conversation === undefined ? '' : ' AND conversation_key = ?';
    this.#params = conversation === undefined ? [] : [conversation];
  }

  /** The updates still in the inbox, in arrival order. */
  updates(): StoredUpdate[] {
    return this.#db
      .prepare(
        'SELECT payload, received_at AS at, kind, conversation_key AS conversationKey FROM inbox ' +
          `WHERE kind IN ('update', 'event')${this.#where} ORDER BY id`,
      )
      .all(...this.#params) as StoredUpdate[];
  }

  /** The calls that were sent (`done`) or given up (`failed`), in commit order. */
  settledCalls(): SettledCall[] {
    return this.#db
      .prepare(
        `SELECT op, kind, args, result, status, error, created_at AS at FROM outbox WHERE status IN ('done', 'failed')${this.#where} ORDER BY id`,
      )
      .all(...this.#params) as SettledCall[];
  }

  /** Per conversation: when its oldest update still in the inbox arrived. */
  firstKeptUpdate(): Map<string, number> {
    const rows = this.#db
      .prepare(
        `SELECT conversation_key AS k, min(received_at) AS at FROM inbox WHERE kind = 'update'${this.#where} GROUP BY k`,
      )
      .all(...this.#params) as { k: string; at: number }[];
    return new Map(rows.map((r) => [r.k, r.at]));
  }

  /** Per conversation: when its current session started. */
  sessionStarts(): Map<string, number> {
    const rows = this.#db
      .prepare(`SELECT conversation_key AS k, started_at AS at FROM sessions WHERE 1 = 1${this.#where}`)
      .all(...this.#params) as { k: string; at: number }[];
    return new Map(rows.map((r) => [r.k, r.at]));
  }

  /** Every outbox row after `afterId`, whatever its status, in id order. */
  outboxAfter(afterId: number): OutboxEntry[] {
    this.#outboxAfter ??= this.#db.prepare(
      'SELECT id, conversation_key AS conversationKey, revision, kind, op, args, status, error FROM outbox WHERE id > ? ORDER BY id',
    );
    return this.#outboxAfter.all(afterId);
  }
}
