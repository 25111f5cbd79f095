/**
 * The outbox dispatcher of several processes on one PostgreSQL database. The platform's limits are per
 * bot, so exactly one process sends at a time: the holder of the `dispatcher` lease (the cluster's
 * ownership loop takes and renews it, and calls `lead()` / `follow()`). It claims the head call of each order
 * key in one statement that checks the lease, sends through this process's scheduler, and settles each
 * call with its result event in one transaction. Calls a dead dispatcher left in flight are sent again by
 * the next one (sendMessage through the send-once read-back: never shown twice).
 */
import type { Logger } from 'pino';
import { DeadLetterError } from '../client/scheduler/types.ts';
import type { PgOutbox, PgOutboxRow } from '../store/postgres/outbox.ts';
import type { DispatchOutcome } from './dispatcher.ts';
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

/** What the shared dispatcher needs. */
export interface SharedDispatcherOptions {
  outbox: PgOutbox;
  /** This process's member id: the lease holder's name. */
  member: string;
  gateway: CallGateway;
  upload?: MediaUploader | undefined;
  now: () => number;
  logger?: Logger | undefined;
  /** Calls handed to the scheduler at once (default 256). */
  maxInFlight?: number;
  /** Called for every settled row. */
  onOutcome(outcome: DispatchOutcome): void;
  /** Pause before a new dispatcher's first claim (default 1000 ms: the platform's limits are per second). */
  handoverPauseMs?: number;
  /**
   * How long a new dispatcher waits, at most, for the calls a previous one still sends (it lost its lease
   * while alive: its scheduler sends what it holds); default 30 s. Meanwhile this one sends nothing, so
   * the two together stay within the limits.
   */
  handoverWaitMs?: number;
}

/** Sends the shared outbox while this process leads. */
export class SharedDispatcher {
  readonly #o: SharedDispatcherOptions;
  readonly #busyKeys = new Set<string>();
  readonly #claimed = new ClaimedMessages();
  readonly #inFlight = new Map<number, Promise<void>>();
  #leading = false;
  /** No claim before this time (ms): the handover pause. */
  #resumeAt = 0;
  /** Until this time (ms) the first claim waits for calls other live processes still send. */
  #handoverUntil: number | undefined;
  #resumeTimer: NodeJS.Timeout | undefined;
  #pumping = false;
  #again = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: SharedDispatcherOptions) {
    this.#o = options;
  }

  /** True while this process holds the dispatcher lease. */
  get leading(): boolean {
    return this.#leading;
  }

  /** Calls in flight now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * This process took the lease: start sending (calls left in flight by the previous holder first), after
   * a second's pause: the previous dispatcher may have spent this second's budget, globally and per chat,
   * and this process's scheduler never saw it.
   */
  lead(): void {
    if (this.#leading) return;
    this.#o.logger?.info('this process is the dispatcher now: it sends the outbox');
    this.#leading = true;
    this.#resumeAt = Date.now() + (this.#o.handoverPauseMs ?? 1000);
    this.#handoverUntil = Date.now() + (this.#o.handoverWaitMs ?? 30_000);
    this.wake();
  }

  /** The lease is gone (or the process stops): claim nothing more; calls in flight finish. */
  follow(): void {
    if (this.#leading) this.#o.logger?.info('this process is no longer the dispatcher');
    this.#leading = false;
  }

  /** Stops claiming and waits up to `waitMs` for calls in flight (the rest stay `sending`: resent by the next). */
  async stop(waitMs = 10_000): Promise<void> {
    this.#leading = false;
    if (this.#inFlight.size === 0) return;
    await settledWithin(this.#inFlight.values(), waitMs);
  }

  /** New rows may be there: look soon. */
  wake(): void {
    if (!this.#leading) return;
    const wait = this.#resumeAt - Date.now();
    if (wait > 0) {
      // In the handover pause: look when it ends (a timer may fire a little early: it wakes again).
      this.#resumeTimer ??= setTimeout(() => {
        this.#resumeTimer = undefined;
        this.wake();
      }, wait + 1);
      this.#resumeTimer.unref();
      return;
    }
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = true;
    void this.#pump().finally(() => {
      this.#pumping = false;
      if (this.#again) {
        this.#again = false;
        this.wake();
      } else if (this.#inFlight.size === 0) this.#notifyIdle();
    });
  }

  /** Resolves when nothing is in flight and no claim is under way. */
  idle(): Promise<void> {
    if (this.#inFlight.size === 0 && !this.#pumping) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  async #pump(): Promise<void> {
    if (this.#handoverUntil !== undefined && !(await this.#previousDone())) return;
    const max = this.#o.maxInFlight ?? 256;
    while (this.#leading && this.#inFlight.size < max) {
      let rows: PgOutboxRow[];
      try {
        rows = await this.#o.outbox.claimHeads(
          this.#o.member,
          [...this.#busyKeys],
          max - this.#inFlight.size,
          this.#o.now(),
        );
      } catch (error) {
        this.#o.logger?.error({ err: error }, 'could not claim outbox rows; trying again shortly');
        return;
      }
      if (rows.length === 0) return;
      for (const row of rows) this.#launch(row);
    }
  }

  /**
   * Whether the previous dispatcher (alive, without the lease) has finished what it was sending; if not,
   * looks again in a quarter of a second. Gives up waiting after `handoverWaitMs`.
   */
  async #previousDone(): Promise<boolean> {
    let others = 0;
    try {
      others = await this.#o.outbox.othersSending(this.#o.member);
    } catch (error) {
      this.#o.logger?.error(
        { err: error },
        'could not read the calls in flight elsewhere; trying again shortly',
      );
      others = 1;
    }
    if (others === 0 || Date.now() >= this.#handoverUntil!) {
      if (others > 0)
        this.#o.logger?.warn({ inFlightElsewhere: others }, 'sending although another process still sends');
      this.#handoverUntil = undefined;
      return true;
    }
    this.#resumeAt = Date.now() + 250;
    this.#again = true;
    return false;
  }

  #launch(row: PgOutboxRow): void {
    this.#busyKeys.add(row.orderKey);
    if (row.attempts > 1) {
      this.#o.logger?.warn(
        { conversation: row.conversationKey, outboxId: row.id, op: row.op, attempts: row.attempts },
        'resending a call that was in flight when its dispatcher stopped',
      );
    }
    const done = this.#learnSent(row)
      .then(() => sendCall(row, this.#o, this.#claimed))
      .then(
        (result) => this.#finish(row, { ok: true, result }),
        (error: unknown) =>
          error instanceof DeadLetterError && error.reason === 'closed' && !error.attempted
            ? this.#o.outbox.release(row.id).catch(() => {})
            : this.#finish(row, { ok: false, error: errorInfo(error) }),
      )
      .finally(() => {
        this.#inFlight.delete(row.id);
        this.#busyKeys.delete(row.orderKey);
        if (this.#leading) this.wake();
        else if (this.#inFlight.size === 0 && !this.#pumping) this.#notifyIdle();
      });
    this.#inFlight.set(row.id, done);
  }

  /** Before a resend: the messages earlier calls sent just before are theirs (see OutboxDispatcher). */
  async #learnSent(row: PgOutboxRow): Promise<void> {
    if (row.attempts <= 1 || row.op !== 'sendMessage' || row.chatId === null) return;
    const since = (row.sentAt ?? this.#o.now()) - LEARN_WINDOW_MS;
    const results = await this.#o.outbox.sentResults(row.chatId, since, row.id);
    for (const mid of sentMessageIds(results)) this.#claimed.add(mid);
  }

  async #finish(row: PgOutboxRow, outcome: CallOutcome): Promise<void> {
    try {
      await this.#o.outbox.finish(row, finishOf(row, outcome), resultEventOf(row, outcome), this.#o.now());
    } catch (error) {
      // The row stays `sending`: the next dispatcher sends it again (a message through the read-back).
      this.#o.logger?.error({ outboxId: row.id, err: error }, 'could not record a call outcome');
      return;
    }
    if (!outcome.ok) {
      this.#o.logger?.warn(
        { conversation: row.conversationKey, outboxId: row.id, op: row.op, error: outcome.error },
        'call failed for good',
      );
    }
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
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}
