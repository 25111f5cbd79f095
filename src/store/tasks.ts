/**
 * The `tasks` table: the task outbox. A committed step's task is `pending` until the runner starts an
 * attempt (`running`), then `done` or `failed` with its result or error, or `pending` again with a later
 * `run_after` for a retry. A crash leaves it `running`; the next start makes it pending again, so it runs
 * again with the same idempotency key (at least once).
 */
import type Database from 'better-sqlite3';
import { EngineInbox } from './engine-inbox.ts';
import { partitionOf } from './partitions.ts';
import type { AttemptEnd, NewTaskRow, Partitions, Recorded, TaskPort, TaskRow } from './ports/tasks.ts';

export type { NewTaskRow, TaskRow } from './ports/tasks.ts';

import { COMPENSATION_SUFFIX } from './ports/tasks.ts';

export { COMPENSATION_SUFFIX } from './ports/tasks.ts';

/** A task's per attempt timeout when its policy does not say (the runner's default). */
const DEFAULT_TIMEOUT_MS = 30_000;

/** What a cancelled open task needs for its compensation. */
type Cancelling = Pick<
  TaskRow,
  | 'id'
  | 'conversationKey'
  | 'revision'
  | 'stepInstance'
  | 'ref'
  | 'input'
  | 'scope'
  | 'policy'
  | 'chatId'
  | 'idempotencyKey'
  | 'status'
  | 'attempts'
  | 'startedAt'
>;

/**
 * The compensating task of a task cancelled after an attempt began, if its policy names one (`onCancel`):
 * same idempotency key and input; `scope.compensates` names the cancelled task (whose input and late result
 * the runner hands it). Cancelled mid-attempt, it waits for that attempt's deadline (the runner brings it
 * forward as soon as the attempt has ended), so the two never run at once.
 */
export function compensationOf(row: Cancelling, now: number): NewTaskRow | undefined {
  if (row.attempts < 1) return undefined;
  const policy = JSON.parse(row.policy) as { onCancel?: { task?: unknown }; timeoutMs?: number };
  const task = policy.onCancel?.task;
  if (typeof task !== 'string') return undefined;
  const runAfter =
    row.status === 'running' ? (row.startedAt ?? now) + (policy.timeoutMs ?? DEFAULT_TIMEOUT_MS) : now;
  return {
    conversationKey: row.conversationKey,
    revision: row.revision,
    stepInstance: row.stepInstance,
    name: task,
    ref: `${row.ref}${COMPENSATION_SUFFIX}`,
    input: row.input,
    scope: JSON.stringify({ ...(JSON.parse(row.scope) as object), compensates: row.id }),
    policy: '{}',
    chatId: row.chatId,
    idempotencyKey: row.idempotencyKey,
    createdAt: now,
    runAfter,
  };
}

// Queries of open tasks repeat the partial index's predicate (`status IN ('pending', 'running')`): SQLite
// uses a partial index only when the query names its condition.
const COLUMNS =
  'id, conversation_key AS conversationKey, revision, step_instance AS stepInstance, name, ref, input, scope, ' +
  'policy, chat_id AS chatId, idempotency_key AS idempotencyKey, status, attempts, run_after AS runAfter, ' +
  'result, error, created_at AS createdAt, started_at AS startedAt, finished_at AS finishedAt';

/** Partitions: a conversation's partition, computed in SQL (SQLite stores none: one process owns all). */
const IN_PARTITIONS =
  ' AND botflow_partition(conversation_key) IN (SELECT value FROM json_each(@partitions))';
const withPartitionFunction = new WeakSet<Database.Database>();

/**
 * Queries of the `tasks` table (statements prepared once); the task runner's port on SQLite, where one
 * process owns every partition (`'all'`) and every answer is synchronous.
 */
export class TaskStore implements TaskPort {
  readonly #insert: Database.Statement;
  readonly #finish: Database.Statement;
  readonly #later: Database.Statement;
  readonly #open: Database.Statement<[string], TaskRow>;
  readonly #cancelOne: Database.Statement<[number, string, number]>;
  readonly #get: Database.Statement<[number], TaskRow>;
  /** Statements that name partitions, prepared when first used (`'all'` and a list differ). */
  readonly #partitioned = new Map<string, Database.Statement>();
  readonly #forConversation: Database.Statement<[string, number], TaskRow>;
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#insert = db.prepare(
      'INSERT INTO tasks (conversation_key, revision, step_instance, name, ref, input, scope, policy, chat_id, ' +
        'idempotency_key, run_after, created_at) VALUES (@conversationKey, @revision, @stepInstance, @name, @ref, ' +
        '@input, @scope, @policy, @chatId, @idempotencyKey, coalesce(@runAfter, @createdAt), @createdAt)',
    );
    this.#finish = db.prepare(
      // A task done after a failed attempt keeps that attempt's error (shown beside its attempts).
      'UPDATE tasks SET status = @status, result = @result, error = COALESCE(@error, error), finished_at = @now ' +
        "WHERE id = @id AND status = 'running'",
    );
    this.#later = db.prepare(
      "UPDATE tasks SET status = 'pending', run_after = @runAfter, error = @error WHERE id = @id AND status = 'running'",
    );
    this.#open = db.prepare(
      `SELECT ${COLUMNS} FROM tasks WHERE conversation_key = ? AND status IN ('pending', 'running') ` +
        `AND ref NOT LIKE '%${COMPENSATION_SUFFIX}'`,
    );
    this.#cancelOne = db.prepare(
      "UPDATE tasks SET status = 'cancelled', finished_at = ?, error = ? WHERE id = ? AND status IN ('pending', 'running')",
    );
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM tasks WHERE id = ?`);
    this.#forConversation = db.prepare(
      `SELECT ${COLUMNS} FROM tasks WHERE conversation_key = ? ORDER BY id DESC LIMIT ?`,
    );
  }

  insert(row: NewTaskRow): void {
    this.#insert.run({ runAfter: null, ...row });
  }

  get open(): boolean {
    return this.#db.open;
  }

  /**
   * Starts an attempt of up to `limit` pending tasks of `partitions` whose next attempt may start at `now`,
   * oldest first: each is `running` with its attempt counted. One statement (one commit) starts every due
   * task the runner has room for. Returns them as they are now.
   */
  claimDue(partitions: Partitions, now: number, limit: number): TaskRow[] {
    if (partitions !== 'all' && partitions.length === 0) return [];
    return (
      this.#statement(
        partitions,
        "UPDATE tasks SET status = 'running', attempts = attempts + 1, started_at = @now WHERE id IN (" +
          "SELECT id FROM tasks WHERE status IN ('pending', 'running') AND status = 'pending' AND run_after <= @now" +
          ' {partitions} ORDER BY run_after, id LIMIT @limit) ' +
          `RETURNING ${COLUMNS}`,
      ).all({ now, limit, ...this.#partitionsParam(partitions) }) as TaskRow[]
    ).sort((a, b) => a.runAfter - b.runAfter || a.id - b.id);
  }

  /** Records the outcome of a running task; false when it is no longer running (cancelled meanwhile). */
  finish(id: number, outcome: { status: 'done' | 'failed'; result?: string; error?: string }, now: number) {
    return (
      this.#finish.run({
        id,
        status: outcome.status,
        result: outcome.result ?? null,
        error: outcome.error ?? null,
        now,
      }).changes === 1
    );
  }

  /** Puts a failed attempt back in line for a retry at `runAfter`. */
  retryLater(id: number, runAfter: number, error: string): boolean {
    return this.#later.run({ id, runAfter, error }).changes === 1;
  }

  /**
   * Cancels the conversation's open task with `ref` (the step's cancel policy), starting its compensation
   * when it has one and an attempt began; returns how many. Run it inside the step's transaction.
   */
  cancel(conversationKey: string, ref: string, reason: string, now: number): number {
    return this.#cancelRows(
      this.#open.all(conversationKey).filter((row) => row.ref === ref),
      reason,
      now,
    );
  }

  /**
   * Cancels every open task of a conversation (its step was left, the person stopped the bot, support
   * ended it), starting their compensations; returns how many. Compensations themselves are not cancelled.
   */
  cancelAll(conversationKey: string, reason: string, now: number): number {
    return this.#cancelRows(this.#open.all(conversationKey), reason, now);
  }

  #cancelRows(rows: readonly TaskRow[], reason: string, now: number): number {
    const error = JSON.stringify({ code: 'cancelled', message: reason });
    let n = 0;
    for (const row of rows) {
      if (this.#cancelOne.run(now, error, row.id).changes === 0) continue;
      n++;
      const compensation = compensationOf(row, now);
      if (compensation) this.insert(compensation);
    }
    return n;
  }

  /**
   * Records what an attempt of a cancelled task ended with (it ran on after the cancellation): the result
   * or error is kept on the row, nobody is told, and its compensation, waiting for the attempt to end, may
   * start now.
   */
  recordLate(row: TaskRow, outcome: { result?: string; error?: string }, now: number): void {
    this.#db
      .prepare(
        "UPDATE tasks SET result = ?, error = coalesce(?, error) WHERE id = ? AND status = 'cancelled'",
      )
      .run(outcome.result ?? null, outcome.error ?? null, row.id);
    this.#db
      .prepare(
        "UPDATE tasks SET run_after = min(run_after, ?) WHERE status IN ('pending', 'running') AND status = 'pending' " +
          'AND conversation_key = ? AND ref = ? AND idempotency_key = ?',
      )
      .run(now, row.conversationKey, `${row.ref}${COMPENSATION_SUFFIX}`, row.idempotencyKey);
  }

  get(id: number): TaskRow | undefined {
    return this.#get.get(id);
  }

  /** When the earliest pending task of `partitions` may start, if any. */
  nextRunAfter(partitions: Partitions = 'all'): number | undefined {
    if (partitions !== 'all' && partitions.length === 0) return undefined;
    const row = this.#statement(
      partitions,
      "SELECT min(run_after) AS at FROM tasks WHERE status IN ('pending', 'running') AND status = 'pending' {partitions}",
    ).get(this.#partitionsParam(partitions)) as { at: number | null } | undefined;
    return row?.at ?? undefined;
  }

  /**
   * Tasks of `partitions` left running by a process that stopped are pending again (they run again), but
   * those of `runningHere`, which this process runs; returns how many.
   */
  recover(partitions: Partitions = 'all', runningHere: readonly number[] = []): number {
    if (partitions !== 'all' && partitions.length === 0) return 0;
    return this.#statement(
      partitions,
      "UPDATE tasks SET status = 'pending' WHERE status IN ('pending', 'running') AND status = 'running' " +
        'AND id NOT IN (SELECT value FROM json_each(@running)) {partitions}',
    ).run({ running: JSON.stringify(runningHere), ...this.#partitionsParam(partitions) }).changes;
  }

  /**
   * Records ended attempts (see `TaskPort.record`) in one transaction, each settled one with its
   * `task_result` inbox event, and with `claim` starts the next due tasks in the same transaction.
   */
  record(
    ends: readonly AttemptEnd[],
    now: number,
    claim?: { partitions: Partitions; limit: number },
  ): { recorded: Recorded[]; claimed: TaskRow[] } {
    this.#recordAll ??= this.#db.transaction(
      (ends: readonly AttemptEnd[], now: number, claim?: { partitions: Partitions; limit: number }) => {
        const recorded = ends.map((end) => this.#recordOne(end, now));
        const claimed = claim && claim.limit > 0 ? this.claimDue(claim.partitions, now, claim.limit) : [];
        return { recorded, claimed };
      },
    );
    return this.#recordAll.immediate(ends, now, claim);
  }

  #recordAll:
    | Database.Transaction<
        (
          ends: readonly AttemptEnd[],
          now: number,
          claim?: { partitions: Partitions; limit: number },
        ) => { recorded: Recorded[]; claimed: TaskRow[] }
      >
    | undefined;
  #inbox: EngineInbox | undefined;

  #recordOne(end: AttemptEnd, now: number): Recorded {
    if (end.kind === 'aborted') {
      this.recordLate(end.row, {}, now); // aborted: nothing to keep but that it ended
      return 'cancelled';
    }
    if (end.kind === 'retry') {
      if (this.retryLater(end.row.id, end.runAfter, end.error)) return 'retry';
    } else if (this.finish(end.row.id, end.finish, now)) {
      this.#inbox ??= new EngineInbox(this.#db);
      this.#inbox.add({
        kind: 'task_result',
        dedupeKey: `task:${end.row.id}`,
        conversationKey: end.row.conversationKey,
        payload: end.payload,
        receivedAt: now,
      });
      return 'settled';
    }
    this.recordLate(end.row, end.late, now); // cancelled meanwhile: kept on the row, nobody told
    return 'cancelled';
  }

  /** The ids among `ids` whose step cancelled them. */
  cancelled(ids: readonly number[]): number[] {
    if (ids.length === 0) return [];
    return (
      this.#db
        .prepare("SELECT id FROM tasks WHERE id IN (SELECT value FROM json_each(?)) AND status = 'cancelled'")
        .all(JSON.stringify(ids)) as { id: number }[]
    ).map((row) => row.id);
  }

  /** `sql` with its `{partitions}` condition for `partitions`, prepared once per form. */
  #statement(partitions: Partitions, sql: string): Database.Statement {
    const text = sql.replace(' {partitions}', partitions === 'all' ? '' : IN_PARTITIONS);
    let statement = this.#partitioned.get(text);
    if (!statement) {
      if (partitions !== 'all' && !withPartitionFunction.has(this.#db)) {
        this.#db.function('botflow_partition', { deterministic: true }, (key) =>
          partitionOf(key as string | null),
        );
        withPartitionFunction.add(this.#db);
      }
      statement = this.#db.prepare(text);
      this.#partitioned.set(text, statement);
    }
    return statement;
  }

  #partitionsParam(partitions: Partitions): { partitions?: string } {
    return partitions === 'all' ? {} : { partitions: JSON.stringify(partitions) };
  }

  /** The latest tasks of a conversation, newest first (support, the playground). */
  forConversation(conversationKey: string, limit = 50): TaskRow[] {
    return this.#forConversation.all(conversationKey, limit);
  }

  /** Tasks started after the task `afterId`, in start order (transcripts read a turn's tasks). */
  after(afterId: number): TaskRow[] {
    return this.#db
      .prepare(`SELECT ${COLUMNS} FROM tasks WHERE id > ? ORDER BY id`)
      .all(afterId) as TaskRow[];
  }

  /** Row counts per status (metrics, tests). */
  counts(): Record<TaskRow['status'], number> {
    const out = { pending: 0, running: 0, done: 0, failed: 0, cancelled: 0 };
    const rows = this.#db.prepare('SELECT status, count(*) AS n FROM tasks GROUP BY status').all() as {
      status: TaskRow['status'];
      n: number;
    }[];
    for (const { status, n } of rows) out[status] = n;
    return out;
  }

  /** Deletes up to `limit` settled tasks finished before `before`; returns how many. */
  prune(before: number, limit = 2000): number {
    return this.#db
      .prepare(
        'DELETE FROM tasks WHERE id IN (SELECT id FROM tasks WHERE finished_at < ? ' +
          "AND status IN ('done', 'failed', 'cancelled') LIMIT ?)",
      )
      .run(before, limit).changes;
  }
}
