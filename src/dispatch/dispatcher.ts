/**
 * The outbox dispatcher: sends committed API calls through the scheduler, one at a time per order key
 * (a chat, or one callback) and in commit order within it, many order keys at once. A row is marked
 * `sending` (committed) before it goes out and settled when the answer comes, so after a crash exactly
 * the rows that were in flight are sent again. Results a flow asked for (`ref`) come back through the
 * inbox as `effect_result` events, in the conversation's order like everything else.
 */
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { DeadLetterError } from '../client/scheduler/types.ts';
import { EngineInbox } from '../store/engine-inbox.ts';
import { type OutboxRow, OutboxStore } from '../store/outbox.ts';
import {
  type CallGateway,
  type CallOutcome,
  errorInfo,
  finishOf,
  type MediaUploader,
  resultEventOf,
  sendCall,
} from './send.ts';
import { ClaimedMessages, LEARN_WINDOW_MS, sentMessageIds } from './sent-once.ts';
import { settledWithin } from './wait.ts';

export type { CallGateway, MediaUploader } from './send.ts';

/** What happened to one outbox row. */
export interface DispatchOutcome {
  outboxId: number;
  conversationKey: string;
  op: string;
  status: 'done' | 'failed';
  /** How many times it was handed over (2+ means it was resent after a crash). */
  attempts: number;
  error?: { code: string; message: string };
}

/** What the dispatcher needs. */
export interface DispatcherOptions {
  db: Database.Database;
  gateway: CallGateway;
  upload?: MediaUploader | undefined;
  now: () => number;
  logger?: Logger | undefined;
  /** Calls handed to the scheduler at once, all order keys together (default 256). */
  maxInFlight?: number;
  /** Called after a result was written to the inbox (the engine processes it). */
  onResult(): void;
  /** Called for every settled row. */
  onOutcome(outcome: DispatchOutcome): void;
}

const SCAN_PAGE = 500;

/** Sends the outbox. */
export class OutboxDispatcher {
  readonly #o: DispatcherOptions;
  readonly #outbox: OutboxStore;
  readonly #inbox: EngineInbox;
  readonly #busyKeys = new Set<string>();
  /** Messages sent or found by read-backs, so that a read-back never takes another call's message. */
  readonly #claimed = new ClaimedMessages();
  readonly #inFlight = new Map<number, Promise<void>>();
  readonly #settle: Database.Transaction<(row: OutboxRow, outcome: CallOutcome) => void>;
  #running = false;
  #pumpQueued = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: DispatcherOptions) {
    this.#o = options;
    this.#outbox = new OutboxStore(options.db);
    this.#inbox = new EngineInbox(options.db);
    this.#settle = options.db.transaction((row: OutboxRow, outcome: CallOutcome) => {
      const now = this.#o.now();
      this.#outbox.finish(row.id, finishOf(row, outcome), now);
      const payload = resultEventOf(row, outcome);
      if (payload !== undefined) {
        this.#inbox.add({
          kind: 'effect_result',
          dedupeKey: `effect:${row.id}`,
          conversationKey: row.conversationKey,
          payload,
          receivedAt: now,
        });
      }
    });
  }

  /** Starts sending; rows left `sending` by a crash are sent again first (they lead their order keys). */
  start(): void {
    this.#running = true;
    this.wake();
  }

  /** Stops taking rows and waits up to `waitMs` (a duration) for the calls in flight (the rest stay `sending`). */
  async stop(waitMs = 10_000): Promise<void> {
    this.#running = false;
    if (this.#inFlight.size === 0) return;
    await settledWithin(this.#inFlight.values(), waitMs);
  }

  /** New rows were committed: look for work soon. */
  wake(): void {
    if (!this.#running || this.#pumpQueued) return;
    this.#pumpQueued = true;
    setImmediate(() => {
      this.#pumpQueued = false;
      this.#pump();
    });
  }

  /** Resolves when nothing is in flight and nothing sendable is left (tests, shutdown). */
  idle(): Promise<void> {
    if (this.#inFlight.size === 0 && !this.#pumpQueued) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Calls in flight now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  #pump(): void {
    if (!this.#running) return;
    const max = this.#o.maxInFlight ?? 256;
    const seen = new Set<string>();
    let afterId = 0;
    while (this.#inFlight.size < max) {
      const rows = this.#outbox.open(afterId, SCAN_PAGE);
      for (const row of rows) {
        afterId = row.id;
        if (this.#inFlight.size >= max) break;
        // The first open row of an order key is its head; later rows wait for it.
        if (seen.has(row.orderKey) || this.#busyKeys.has(row.orderKey)) {
          seen.add(row.orderKey);
          continue;
        }
        seen.add(row.orderKey);
        if (this.#outbox.claim(row.id, this.#o.now())) this.#launch({ ...row, attempts: row.attempts + 1 });
      }
      if (rows.length < SCAN_PAGE) break;
    }
    if (this.#inFlight.size === 0) this.#notifyIdle();
  }

  #launch(row: OutboxRow): void {
    this.#busyKeys.add(row.orderKey);
    if (row.attempts > 1) {
      this.#o.logger?.warn(
        { conversation: row.conversationKey, outboxId: row.id, op: row.op, attempts: row.attempts },
        'resending a call that was in flight when the process stopped',
      );
    }
    if (row.attempts > 1 && row.op === 'sendMessage' && row.chatId !== null) {
      // Messages earlier calls sent before are theirs, not this one's: the read-back must not take them.
      const since = (row.sentAt ?? this.#o.now()) - LEARN_WINDOW_MS;
      for (const mid of sentMessageIds(this.#outbox.sentResults(row.chatId, since, row.id)))
        this.#claimed.add(mid);
    }
    const done = sendCall(row, this.#o, this.#claimed)
      .then(
        (result) => this.#finish(row, { ok: true, result }),
        (error: unknown) =>
          error instanceof DeadLetterError && error.reason === 'closed' && !error.attempted
            ? this.#release(row)
            : this.#finish(row, { ok: false, error: errorInfo(error) }),
      )
      .finally(() => {
        this.#inFlight.delete(row.id);
        this.#busyKeys.delete(row.orderKey);
        if (this.#running) this.wake();
        else if (this.#inFlight.size === 0) this.#notifyIdle();
      });
    this.#inFlight.set(row.id, done);
  }

  /** The scheduler stopped before the call went out: the row is pending again, sent at the next start. */
  #release(row: OutboxRow): void {
    if (!this.#o.db.open) return; // left `sending`: sent again at the next start, still never sent twice
    this.#outbox.release(row.id);
  }

  #finish(row: OutboxRow, outcome: CallOutcome): void {
    if (!this.#o.db.open) {
      // An answer after the database closed: the row stays `sending` and is sent again at the next start.
      this.#o.logger?.info({ outboxId: row.id, op: row.op }, 'a call answered after the database closed');
      return;
    }
    try {
      this.#settle.immediate(row, outcome);
    } catch (error) {
      // The database is gone (closing) or failing: the row stays `sending` and is resent after a restart.
      this.#o.logger?.error({ outboxId: row.id, err: error }, 'could not record a call outcome');
      return;
    }
    if (!outcome.ok) {
      this.#o.logger?.warn(
        { conversation: row.conversationKey, outboxId: row.id, op: row.op, error: outcome.error },
        'call failed for good',
      );
    }
    if (row.ref) this.#o.onResult();
    this.#o.onOutcome({
      outboxId: row.id,
      conversationKey: row.conversationKey,
      op: row.op,
      status: outcome.ok ? 'done' : 'failed',
      attempts: row.attempts,
      ...(outcome.ok ? {} : { error: outcome.error }),
    });
  }

  #notifyIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
