/**
 * The `sessions` table: one row per conversation key holding its XState snapshot, the flow version it is
 * pinned to, and the revision that guards every write (compare-and-swap). Also the support queries.
 */
import type Database from 'better-sqlite3';
import {
  RevisionConflictError,
  type SessionListQuery,
  type SessionRow,
  type SessionSummary,
} from './ports/rows.ts';

export {
  RevisionConflictError,
  type SessionListQuery,
  type SessionRow,
  type SessionSummary,
} from './ports/rows.ts';

const COLUMNS =
  'conversation_key AS conversationKey, flow_id AS flowId, flow_version AS flowVersion, status, ' +
  'state_value AS stateValue, revision, step_instance AS stepInstance, started_revision AS startedRevision, ' +
  'chat_id AS chatId, user_id AS userId, locale, started_at AS startedAt, updated_at AS updatedAt';

/** Queries of the `sessions` table; statements are prepared once. */
export class SessionStore {
  readonly #get: Database.Statement<[string], SessionRow>;
  readonly #insert: Database.Statement;
  readonly #update: Database.Statement;
  readonly #setStatus: Database.Statement;
  readonly #advance: Database.Statement;
  readonly #countActiveByVersion: Database.Statement<[], { flowId: string; flowVersion: string; n: number }>;
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#get = db.prepare(`SELECT ${COLUMNS}, snapshot FROM sessions WHERE conversation_key = ?`);
    this.#insert = db.prepare(
      'INSERT INTO sessions (flow_id, flow_version, status, state_value, snapshot, revision, step_instance, ' +
        'started_revision, chat_id, user_id, locale, started_at, updated_at, conversation_key) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#update = db.prepare(
      'UPDATE sessions SET flow_id = ?, flow_version = ?, status = ?, state_value = ?, snapshot = ?, revision = ?, ' +
        'step_instance = ?, started_revision = ?, chat_id = ?, user_id = ?, locale = ?, started_at = ?, ' +
        'updated_at = ? WHERE conversation_key = ? AND revision = ?',
    );
    this.#advance = db.prepare(
      'UPDATE sessions SET state_value = ?, snapshot = ?, revision = ?, step_instance = ?, updated_at = ? ' +
        'WHERE conversation_key = ? AND revision = ?',
    );
    this.#setStatus = db.prepare(
      'UPDATE sessions SET status = ?, revision = revision + 1, updated_at = ? WHERE conversation_key = ? AND revision = ?',
    );
    this.#countActiveByVersion = db.prepare(
      "SELECT flow_id AS flowId, flow_version AS flowVersion, count(*) AS n FROM sessions WHERE status = 'active' " +
        'GROUP BY flow_id, flow_version',
    );
  }

  /** The session of `conversationKey`, or undefined when the conversation never had one. */
  get(conversationKey: string): SessionRow | undefined {
    return this.#get.get(conversationKey);
  }

  /**
   * Writes `row` if the stored revision is still `expectedRevision` (undefined: the row must not exist
   * yet). Throws RevisionConflictError otherwise, so a concurrent writer never loses a step.
   */
  save(row: SessionRow, expectedRevision: number | undefined): void {
    // Positional parameters: this runs once per step, and binding by name costs more.
    const values = [
      row.flowId,
      row.flowVersion,
      row.status,
      row.stateValue,
      row.snapshot,
      row.revision,
      row.stepInstance,
      row.startedRevision,
      row.chatId,
      row.userId,
      row.locale,
      row.startedAt,
      row.updatedAt,
      row.conversationKey,
    ];
    if (expectedRevision === undefined) {
      try {
        this.#insert.run(values);
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
          throw new RevisionConflictError(row.conversationKey, 0);
        }
        throw error;
      }
      return;
    }
    const { changes } = this.#update.run([...values, expectedRevision]);
    if (changes !== 1) throw new RevisionConflictError(row.conversationKey, expectedRevision);
  }

  /**
   * The common write of a running session: only its step moved (same flow, version, status, chat). Sets
   * fewer columns than `save`, so SQLite leaves the indexes on the others alone. Compare-and-swap as `save`.
   */
  advance(
    conversationKey: string,
    next: Pick<SessionRow, 'stateValue' | 'snapshot' | 'revision' | 'stepInstance' | 'updatedAt'>,
    expectedRevision: number,
  ): void {
    const { changes } = this.#advance.run(
      next.stateValue,
      next.snapshot,
      next.revision,
      next.stepInstance,
      next.updatedAt,
      conversationKey,
      expectedRevision,
    );
    if (changes !== 1) throw new RevisionConflictError(conversationKey, expectedRevision);
  }

  /** Marks the session ended (`done` or `stopped`) without touching its snapshot; bumps the revision. */
  end(conversationKey: string, status: 'done' | 'stopped', expectedRevision: number, now: number): void {
    const { changes } = this.#setStatus.run(status, now, conversationKey, expectedRevision);
    if (changes !== 1) throw new RevisionConflictError(conversationKey, expectedRevision);
  }

  /** Sessions, most recently updated first, without their snapshots. */
  list(query: SessionListQuery = {}): SessionSummary[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.status) {
      where.push('status = ?');
      params.push(query.status);
    }
    if (query.flowId) {
      where.push('flow_id = ?');
      params.push(query.flowId);
    }
    if (query.updatedBefore !== undefined) {
      where.push('updated_at < ?');
      params.push(query.updatedBefore);
    }
    const limit = Math.min(Math.max(1, Math.trunc(query.limit ?? 50)), 1000);
    const sql =
      `SELECT ${COLUMNS} FROM sessions` +
      (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
      ' ORDER BY updated_at DESC, conversation_key LIMIT ?';
    return this.#db.prepare(sql).all(...params, limit) as SessionSummary[];
  }

  /** The snapshots of the active sessions on one flow version, one at a time (a deploy's plan reads them). */
  *activeSnapshots(
    flowId: string,
    flowVersion: string,
  ): Generator<{ conversationKey: string; snapshot: string }> {
    yield* this.#db
      .prepare(
        "SELECT conversation_key AS conversationKey, snapshot FROM sessions WHERE status = 'active' " +
          'AND flow_id = ? AND flow_version = ?',
      )
      .iterate(flowId, flowVersion) as Iterable<{ conversationKey: string; snapshot: string }>;
  }

  /** How many active sessions run on each flow version (which versions must stay loadable). */
  activeByVersion(): { flowId: string; flowVersion: string; n: number }[] {
    return this.#countActiveByVersion.all();
  }
}
