/**
 * The inbox consumer. Pending events are taken in arrival order, in batches: every event of the batch is
 * planned first (the pure step and the writes it implies; see planner.ts), then all writes are applied in
 * ONE transaction (group commit). Events of one conversation are handled strictly in arrival order, each
 * planned on the session its predecessor left; nothing waits inside a step (a reply, a timer or an API
 * result is just a later event). Committed sessions stay in a bounded cache (session-cache.ts).
 *
 * A flow that throws fails only its own event, at planning. Should applying fail (a session moved on
 * under another process, a constraint), the writes are applied again event by event, each in its own
 * savepoint: a failed event is marked failed with the reason, its session keeps its last good snapshot,
 * and the later events of its conversation stay pending, to be planned again from the database.
 */
import Database from 'better-sqlite3';
import type { Logger } from 'pino';
import type { ConversationKeyStrategy } from '../intake/keys.ts';
import { EngineInbox, type InboxEvent } from '../store/engine-inbox.ts';
import { RevisionConflictError } from '../store/sessions.ts';
import type { ButtonSigner } from './buttons.ts';
import { applyWrites, WriteStores } from './commit.ts';
import { type EventOutcome, type EventPlan, EventPlanner } from './planner.ts';
import type { FlowRegistry } from './registry.ts';
import type { CachedSession, SessionCache } from './session-cache.ts';

export type { EventOutcome } from './planner.ts';

/** What the processor needs. */
export interface ProcessorOptions {
  db: Database.Database;
  registry: FlowRegistry;
  signer: ButtonSigner;
  keyStrategy: ConversationKeyStrategy;
  now: () => number;
  logger?: Logger | undefined;
  /** Answer to a press on a keyboard nobody can act on any more (no session, or policy `notify` without text). */
  staleText: string;
  /** Events per transaction. */
  batchSize: number;
  /** Sessions this process committed, read before the database. */
  cache: SessionCache;
}

/** Failures of the environment, not of one event: the batch is retried later instead of failing events. */
const ENVIRONMENTAL = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|NOMEM|READONLY|CANTOPEN|CORRUPT|PROTOCOL|INTERRUPT)/;

/** True for SQLite errors that say nothing about the event being handled (disk full, database locked…). */
export function isEnvironmental(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return error instanceof Database.SqliteError && typeof code === 'string' && ENVIRONMENTAL.test(code);
}

/** Consumes the inbox. */
export class InboxProcessor {
  readonly inbox: EngineInbox;
  readonly stores: WriteStores;
  readonly #o: ProcessorOptions;
  readonly #planner: EventPlanner;
  readonly #batch: Database.Transaction<() => EventOutcome[]>;
  readonly #carefully: Database.Transaction<(plans: EventPlan[], applied: EventPlan[]) => EventOutcome[]>;
  readonly #savepoint: Database.Transaction<(plan: EventPlan) => number>;
  /** Plans of the batch being processed (kept when its transaction fails, to be applied carefully). */
  #plans: EventPlan[] = [];
  /** Sessions the batch being planned wrote, not committed yet: later events of the batch start from them. */
  readonly #planned = new Map<string, CachedSession>();

  constructor(options: ProcessorOptions) {
    this.#o = options;
    this.inbox = new EngineInbox(options.db);
    this.stores = new WriteStores(options.db);
    this.#planner = new EventPlanner({
      ...options,
      session: (key) => this.#planned.get(key) ?? options.cache.get(key),
    });
    // Rows are read inside the write transaction: no other writer can take them meanwhile.
    this.#batch = options.db.transaction(() => {
      this.#plans = this.planBatch(this.inbox.pending(0, options.batchSize));
      const outcomes = this.#plans.map((plan) => this.#applied(plan, applyWrites(this.stores, plan.ops)));
      if (this.#plans.length > 0) {
        const first = this.#plans[0]!.row.id;
        this.inbox.settleDone(first, this.#plans.at(-1)!.row.id, this.#o.now());
      }
      return outcomes;
    });
    this.#savepoint = options.db.transaction((plan: EventPlan) => applyWrites(this.stores, plan.ops));
    this.#carefully = options.db.transaction((plans: EventPlan[], applied: EventPlan[]) =>
      this.#applyCarefully(plans, applied),
    );
  }

  /**
   * Plans `rows` in order. Each event's session is cached as soon as it is planned, so the next event of
   * the conversation is planned on it.
   */
  planBatch(rows: readonly InboxEvent[]): EventPlan[] {
    const planned = this.#planned;
    planned.clear();
    return rows.map((row) => {
      const plan = this.#planner.plan(row);
      if (plan.written && plan.outcome.conversationKey !== null)
        planned.set(plan.outcome.conversationKey, plan.written);
      return plan;
    });
  }

  /** Caches the sessions `plans` wrote, in order (the last one of a conversation stays): they are committed. */
  #committed(plans: readonly EventPlan[]): void {
    for (const plan of plans) {
      if (plan.written && plan.outcome.conversationKey !== null)
        this.#o.cache.set(plan.outcome.conversationKey, plan.written);
    }
  }

  /**
   * Processes up to one batch of pending events; returns what became of each (empty when none waits).
   * Events held back because their session moved on meanwhile are planned again at once, a few times.
   */
  processBatch(retries = 3): EventOutcome[] {
    let outcomes: EventOutcome[];
    try {
      outcomes = this.#batch.immediate();
    } catch (error) {
      const plans = this.#plans;
      this.#plans = [];
      this.#planned.clear();
      if (isEnvironmental(error) || plans.length === 0) throw error;
      const applied: EventPlan[] = [];
      outcomes = this.#carefully.immediate(plans, applied);
      this.#committed(applied);
      const held = plans.length - outcomes.length;
      return held > 0 && retries > 0 ? [...outcomes, ...this.processBatch(retries - 1)] : outcomes;
    }
    this.#committed(this.#plans);
    this.#plans = [];
    this.#planned.clear();
    return outcomes;
  }

  /** Applies `plans` one savepoint each (see the file comment); adds those applied to `applied`. */
  #applyCarefully(plans: readonly EventPlan[], applied: EventPlan[]): EventOutcome[] {
    const outcomes: EventOutcome[] = [];
    const held = new Set<string>(); // conversations whose later events wait for the next batch
    for (const plan of plans) {
      const key = plan.outcome.conversationKey;
      if (key !== null && held.has(key)) continue;
      try {
        const dropped = this.#savepoint(plan);
        if (plan.outcome.status === 'done') this.inbox.settle(plan.row.id, 'done', null, key, this.#o.now());
        applied.push(plan);
        outcomes.push(this.#applied(plan, dropped));
      } catch (error) {
        if (isEnvironmental(error)) throw error;
        if (key !== null) {
          held.add(key);
          this.#o.cache.delete(key); // possibly stale (written by another process): read it again
        }
        if (error instanceof RevisionConflictError) {
          this.#o.logger?.info(
            { conversation: key, inboxId: plan.row.id },
            'session moved on meanwhile; the event is planned again from the stored session',
          );
          continue;
        }
        const failed = this.#planner.failed(plan.row, key, error);
        applyWrites(this.stores, failed.ops);
        outcomes.push(failed.outcome);
      }
    }
    return outcomes;
  }

  /** The outcome of an applied plan, logging the calls its conversation's leaving dropped. */
  #applied(plan: EventPlan, dropped: number): EventOutcome {
    if (dropped > 0) {
      const why = plan.ops.find((op) => op.kind === 'drop-calls')?.reason;
      this.#o.logger?.info(
        { conversation: plan.outcome.conversationKey, dropped },
        `unsent calls dropped: ${why}`,
      );
    }
    return plan.outcome;
  }
}
