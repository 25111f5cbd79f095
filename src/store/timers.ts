/**
 * The `timers` table: durable timers with absolute deadlines. A step arms (or re-arms) a timer by name;
 * at most one timer of a name is armed per conversation. Timers die with the step that armed them.
 */
import type Database from 'better-sqlite3';
import type { TimerRow, TimerToArm } from './ports/rows.ts';

export type { TimerRow, TimerToArm } from './ports/rows.ts';

const COLUMNS =
  'id, conversation_key AS conversationKey, name, due_at AS dueAt, fire_at AS fireAt, step_instance AS stepInstance, ' +
  'armed_revision AS armedRevision, status, reason, armed_at AS armedAt, settled_at AS settledAt';

/** Queries of the `timers` table; statements are prepared once. */
export class TimerStore {
  readonly #arm: Database.Statement;
  readonly #cancel: Database.Statement<[string, number, string, string]>;
  readonly #discardOtherSteps: Database.Statement<[string, number, string, number]>;
  readonly #settleAll: Database.Statement<[string, string, number, string]>;
  readonly #due: Database.Statement<[number, number], TimerRow>;
  readonly #overdue: Database.Statement<[number], TimerRow>;
  readonly #next: Database.Statement<[], { fireAt: number | null }>;
  readonly #markFired: Database.Statement<[number, number]>;
  readonly #expire: Database.Statement<[string, number, number]>;
  readonly #postpone: Database.Statement<[number, number]>;
  readonly #bringForward: Database.Statement<[number, number, string]>;
  readonly #get: Database.Statement<[number], TimerRow>;
  readonly #forConversation: Database.Statement<[string], TimerRow>;
  readonly #prune: Database.Statement<[number, number]>;

  constructor(db: Database.Database) {
    // One statement whether or not a timer of that name is armed: the partial unique index is the target.
    this.#arm = db.prepare(
      'INSERT INTO timers (due_at, fire_at, step_instance, armed_revision, armed_at, conversation_key, name) ' +
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (conversation_key, name) WHERE status = 'armed' DO UPDATE SET " +
        'due_at = excluded.due_at, fire_at = excluded.fire_at, step_instance = excluded.step_instance, ' +
        'armed_revision = excluded.armed_revision, armed_at = excluded.armed_at',
    );
    this.#cancel = db.prepare(
      "UPDATE timers SET status = 'cancelled', reason = ?, settled_at = ? WHERE conversation_key = ? AND name = ? " +
        "AND status = 'armed'",
    );
    this.#discardOtherSteps = db.prepare(
      "UPDATE timers SET status = 'discarded', reason = ?, settled_at = ? WHERE conversation_key = ? " +
        "AND status = 'armed' AND step_instance <> ?",
    );
    this.#settleAll = db.prepare(
      "UPDATE timers SET status = ?, reason = ?, settled_at = ? WHERE conversation_key = ? AND status = 'armed'",
    );
    this.#due = db.prepare(
      `SELECT ${COLUMNS} FROM timers WHERE status = 'armed' AND fire_at <= ? ORDER BY fire_at, id LIMIT ?`,
    );
    this.#overdue = db.prepare(
      `SELECT ${COLUMNS} FROM timers WHERE status = 'armed' AND fire_at < ? ORDER BY fire_at, id`,
    );
    this.#next = db.prepare("SELECT min(fire_at) AS fireAt FROM timers WHERE status = 'armed'");
    this.#markFired = db.prepare(
      "UPDATE timers SET status = 'fired', settled_at = ? WHERE id = ? AND status = 'armed'",
    );
    this.#expire = db.prepare(
      "UPDATE timers SET status = 'expired', reason = ?, settled_at = ? WHERE id = ? AND status = 'armed'",
    );
    this.#postpone = db.prepare("UPDATE timers SET fire_at = ? WHERE id = ? AND status = 'armed'");
    this.#bringForward = db.prepare(
      "UPDATE timers SET fire_at = max(fire_at - ?, ?) WHERE conversation_key = ? AND status = 'armed'",
    );
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM timers WHERE id = ?`);
    this.#prune = db.prepare(
      "DELETE FROM timers WHERE id IN (SELECT id FROM timers WHERE status <> 'armed' AND settled_at < ? LIMIT ?)",
    );
    this.#forConversation = db.prepare(
      `SELECT ${COLUMNS} FROM timers WHERE conversation_key = ? ORDER BY id DESC LIMIT 50`,
    );
  }

  /** Arms `name` for the conversation at the absolute time `dueAt`, replacing an armed timer of that name. */
  arm(timer: TimerToArm): void {
    const values = [
      timer.dueAt,
      timer.dueAt,
      timer.stepInstance,
      timer.revision,
      timer.now,
      timer.conversationKey,
      timer.name,
    ];
    this.#arm.run(values);
  }

  /** Cancels the armed timer `name` of the conversation, if any. */
  cancel(conversationKey: string, name: string, reason: string, now: number): void {
    this.#cancel.run(reason, now, conversationKey, name);
  }

  /** Discards armed timers of the conversation that were armed in another step than `stepInstance`. */
  discardOtherSteps(conversationKey: string, stepInstance: number, reason: string, now: number): number {
    return this.#discardOtherSteps.run(reason, now, conversationKey, stepInstance).changes;
  }

  /** Settles every armed timer of the conversation (session ended, person left). */
  settleAll(conversationKey: string, status: 'cancelled' | 'discarded', reason: string, now: number): number {
    return this.#settleAll.run(status, reason, now, conversationKey).changes;
  }

  /** Armed timers whose `fire_at` is at or before `now`, earliest first. */
  due(now: number, limit: number): TimerRow[] {
    return this.#due.all(now, limit);
  }

  /** Armed timers whose `fire_at` is before `time`, earliest first (restart recovery). */
  overdue(time: number): TimerRow[] {
    return this.#overdue.all(time);
  }

  /** The earliest `fire_at` of any armed timer, or undefined when none is armed. */
  nextFireAt(): number | undefined {
    return this.#next.get()?.fireAt ?? undefined;
  }

  /** Marks a timer fired; false when it was cancelled meanwhile. */
  markFired(id: number, now: number): boolean {
    return this.#markFired.run(now, id).changes === 1;
  }

  /** Gives up a timer that came due too long ago (grace rule). */
  expire(id: number, reason: string, now: number): void {
    this.#expire.run(reason, now, id);
  }

  /** Moves a timer's firing time (grace rule: spread overdue timers after downtime). */
  postpone(id: number, fireAt: number): void {
    this.#postpone.run(fireAt, id);
  }

  /** Makes every armed timer of the conversation due `ms` sooner, none before `now`; returns how many. */
  bringForward(conversationKey: string, ms: number, now: number): number {
    return this.#bringForward.run(ms, now, conversationKey).changes;
  }

  /** One timer by id. */
  get(id: number): TimerRow | undefined {
    return this.#get.get(id);
  }

  /** The latest 50 timers of a conversation, newest first (support). */
  forConversation(conversationKey: string): TimerRow[] {
    return this.#forConversation.all(conversationKey);
  }

  /** Deletes up to `limit` timers settled before `before` (ms); returns how many. */
  prune(before: number, limit = 2000): number {
    return this.#prune.run(before, limit).changes;
  }
}
