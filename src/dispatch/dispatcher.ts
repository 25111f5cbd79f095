/**
 * The outbox dispatcher: sends committed API calls through the scheduler, one at a time per order key
 * (a chat, or one callback) and in commit order within it, many order keys at once, over any outbox that
 * implements the store's `OutboxPort` (SQLite in one process, PostgreSQL shared by several).
 *
 * A row is marked `sending` (committed) before it goes out and settled with its result event in one
 * transaction when the answer comes, so after a crash exactly the rows that were in flight are sent again
 * (a message through the send-once read-back: never shown twice). Results a flow asked for (`ref`) come
 * back through the inbox as `effect_result` events, in the conversation's order like everything else.
 *
 * One process sends from `start()`. Several processes on one PostgreSQL database send one at a time, the
 * platform's limits being per bot: the holder of the `dispatcher` lease, which the cluster's ownership
 * loop tells with `lead()` / `follow()`. A new leader pauses first (the previous one may have spent this
 * second's budget) and waits for the calls a previous leader, alive without the lease, still sends, then
 * pauses again from its last one. After a clean stop the previous leader hands over its last second of
 * calls (handover.ts): the new one counts them instead of pausing.
 */
import { DeadLetterError, PRIORITIES } from '../client/scheduler/types.ts';
import type { TimerHandle } from '../store/ports/clock.ts';
import type { HandedSend } from '../store/ports/leases.ts';
import { inDoubt, type OutboxRow } from '../store/ports/outbox.ts';
import type { DispatcherOptions } from './dispatcher-options.ts';
import { HandoverGate, RecentCalls } from './handover.ts';
import {
  type CallGateway,
  type CallOutcome,
  errorInfo,
  finishOf,
  mayReadBack,
  resultEventOf,
  sendCall,
} from './send.ts';
import { ClaimedMessages, LEARN_WINDOW_MS, sentMessageIds } from './sent-once.ts';
import { settledWithin } from './wait.ts';

export type { DispatcherOptions, DispatchOutcome } from './dispatcher-options.ts';
export type { CallGateway, MediaUploader } from './send.ts';

/** Looks again this soon while a previous dispatcher still sends (ms). */
const HANDOVER_POLL_MS = 250;
/**
 * A call in doubt is read back (and maybe sent again) only this long after its dispatcher handed it to the
 * transport (ms): a request of a process that died moments ago may still be on its way to the platform (the
 * scheduler allows 2 s for a request to arrive), and a read-back before it arrives would not see it. A
 * death used to be noticed only once its lease lapsed (3 s); now it is seen within a fraction of a second.
 */
export const IN_DOUBT_SETTLE_MS = 3000;

/** Sends the outbox while this process leads. */
export class Dispatcher {
  readonly #o: DispatcherOptions;
  readonly #member: string;
  readonly #busyKeys = new Set<string>();
  /** Messages sent or found by read-backs, so that a read-back never takes another call's message. */
  readonly #claimed = new ClaimedMessages();
  readonly #inFlight = new Map<number, Promise<void>>();
  /** Every call this dispatcher made lately, handed over when it stops. */
  readonly #recent = new RecentCalls();
  readonly #gateway: CallGateway;
  /** After a clean handover: the previous dispatcher's last second of calls, still counting. */
  #gate: HandoverGate | undefined;
  #leading = false;
  /** No claim before this time (ms): the handover pause. */
  #resumeAt = 0;
  /** Until this time (ms) the first claim waits for calls other live processes still send. */
  #handoverUntil: number | undefined;
  /** Since the handover, another process was seen still sending (the pause counts from its last call). */
  #othersWereSending = false;
  #resumeTimer: TimerHandle | undefined;
  #pumpQueued = false;
  #pumping = false;
  #again = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: DispatcherOptions) {
    this.#o = options;
    this.#member = options.member ?? 'local';
    this.#gateway = {
      submit: (job) => {
        const call = this.#recent.begin(job.chatId);
        return options.gateway.submit(job).finally(() => this.#recent.end(call, options.clock.now()));
      },
    };
  }

  /** This dispatcher's calls of the last second and those still open, for its successor (a clean stop). */
  recentCalls(): HandedSend[] {
    return this.#recent.handover(this.#o.clock.now());
  }

  /** True while this process sends (started, or holding the dispatcher lease). */
  get leading(): boolean {
    return this.#leading;
  }

  /** Calls in flight now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** One process: starts sending at once; rows left `sending` by a crash are sent again first. */
  start(): void {
    this.#lead(false);
  }

  /**
   * This process took the dispatcher lease: start sending (calls left in flight by the previous holder
   * first) after the handover pause: the previous dispatcher may have spent this second's budget, globally
   * and per chat, and this process's scheduler never saw it. No pause when that second is known: the
   * previous dispatcher stopped cleanly and handed its calls over (`handedOver`: they are counted), or it
   * died (`previousDead`: its lease lapsed with its membership, seconds after its last call).
   */
  lead(handedOver?: readonly HandedSend[], previousDead = false): void {
    this.#lead(true, handedOver, previousDead);
  }

  #lead(handover: boolean, handedOver?: readonly HandedSend[], previousDead = false): void {
    if (this.#leading) return;
    this.#leading = true;
    this.#gate = undefined;
    if (handover) {
      this.#o.logger?.info(
        { handedOver: handedOver?.length },
        'this process is the dispatcher now: it sends the outbox',
      );
      const now = this.#o.clock.now();
      // Handed over: the previous dispatcher's last second counts. Taken from a process dead for seconds
      // (its lease lapsed): nothing of it counts. Otherwise its last second is unknown: pause.
      if (handedOver) this.#gate = new HandoverGate(handedOver, now);
      this.#resumeAt = handedOver || previousDead ? now : now + (this.#o.handoverPauseMs ?? 1000);
      this.#handoverUntil = now + (this.#o.handoverWaitMs ?? 30_000);
      this.#othersWereSending = false;
    } else {
      this.#resumeAt = 0;
      this.#handoverUntil = undefined;
    }
    this.wake();
  }

  /** The lease is gone (or the process stops): claim nothing more; calls in flight finish. */
  follow(): void {
    if (this.#leading) this.#o.logger?.info('this process is no longer the dispatcher');
    this.#leading = false;
    this.#clearResumeTimer();
  }

  /** Stops claiming and waits up to `waitMs` (a duration) for calls in flight (the rest stay `sending`). */
  async stop(waitMs = 10_000): Promise<void> {
    this.#leading = false;
    this.#clearResumeTimer();
    if (this.#inFlight.size === 0) return;
    await settledWithin(this.#inFlight.values(), waitMs);
  }

  /** New rows may be there: look soon. */
  wake(): void {
    if (!this.#leading || this.#pumpQueued) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    const wait = this.#resumeAt - this.#o.clock.now();
    if (wait > 0) {
      // In the handover pause: look when it ends (a timer may fire a little early: it wakes again).
      this.#resumeTimer ??= this.#o.clock.setTimer(() => {
        this.#resumeTimer = undefined;
        this.wake();
      }, wait + 1);
      return;
    }
    this.#pumpQueued = true;
    setImmediate(() => {
      this.#pumpQueued = false;
      this.#pumping = true;
      void this.#pump().finally(() => {
        this.#pumping = false;
        if (this.#again && this.#leading) {
          this.#again = false;
          this.wake();
        } else if (this.#inFlight.size === 0) this.#notifyIdle();
      });
    });
  }

  /** Resolves when nothing is in flight and no claim is under way or queued (tests, shutdown). */
  idle(): Promise<void> {
    if (this.#inFlight.size === 0 && !this.#pumping && !this.#pumpQueued) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  async #pump(): Promise<void> {
    if (!this.#leading) return;
    if (this.#handoverUntil !== undefined && !(await this.#previousDone())) return;
    const max = this.#o.maxInFlight ?? 256;
    while (this.#leading && this.#inFlight.size < max) {
      const limit = Math.min(max - this.#inFlight.size, this.#gateRoom());
      if (limit === 0) return;
      let rows: OutboxRow[];
      try {
        // The one priority order: a person's reply is claimed before a campaign's send (PRIORITIES).
        const busy = [...this.#busyKeys];
        rows = await this.#o.outbox.claimHeads(this.#member, busy, limit, this.#o.clock.now(), PRIORITIES);
      } catch (error) {
        this.#o.logger?.error({ err: error }, 'could not claim outbox rows; trying again shortly');
        return;
      }
      this.#gate?.take(this.#o.clock.now(), rows.length);
      for (const row of rows) this.#launch(row);
      // Fewer than asked: no other head is free now (new commits wake the dispatcher again).
      if (rows.length < limit) return;
    }
  }

  /** How many calls the handover gate lets start now (no gate: any); none: look again when there is room. */
  #gateRoom(): number {
    const now = this.#o.clock.now();
    if (this.#gate?.over(now)) this.#gate = undefined;
    if (!this.#gate) return Number.POSITIVE_INFINITY;
    const room = this.#gate.room(now);
    if (room === 0) {
      this.#resumeAt = this.#gate.nextFreeAt(now);
      this.#again = true;
    }
    return room;
  }

  /**
   * Whether the previous dispatcher (alive, without the lease) has finished what it was sending; if not,
   * looks again shortly. Gives up waiting after `handoverWaitMs`. When it was still sending, the handover
   * pause starts again once it is done: its last second of calls counts against the platform's limits,
   * and this process's scheduler never saw them.
   */
  async #previousDone(): Promise<boolean> {
    let others = 0;
    try {
      others = await this.#o.outbox.othersSending(this.#member);
    } catch (error) {
      this.#o.logger?.error(
        { err: error },
        'could not read the calls in flight elsewhere; trying again shortly',
      );
      others = 1;
    }
    const now = this.#o.clock.now();
    if (others === 0 && this.#othersWereSending) {
      // Its last calls went out just now, and spent this second's budget: pause once more from here.
      this.#othersWereSending = false;
      this.#handoverUntil = undefined;
      this.#resumeAt = now + (this.#o.handoverPauseMs ?? 1000);
      this.#again = true;
      return false;
    }
    if (others === 0 || now >= this.#handoverUntil!) {
      if (others > 0)
        this.#o.logger?.warn({ inFlightElsewhere: others }, 'sending although another process still sends');
      this.#handoverUntil = undefined;
      return true;
    }
    this.#othersWereSending = true;
    this.#resumeAt = now + HANDOVER_POLL_MS;
    this.#again = true;
    return false;
  }

  #launch(row: OutboxRow): void {
    this.#busyKeys.add(row.orderKey);
    if (inDoubt(row)) {
      this.#o.logger?.warn(
        { conversation: row.conversationKey, outboxId: row.id, op: row.op, attempts: row.attempts },
        'resending a call that was in flight when its dispatcher stopped',
      );
    }
    const { outbox, clock } = this.#o;
    const onWire = outbox.markSent && mayReadBack(row) ? () => outbox.markSent!(row, clock.now()) : undefined;
    const via = { gateway: this.#gateway, upload: this.#o.upload, now: () => clock.now(), onWire };
    const done = this.#chatFree(row)
      .then(() => this.#arrived(row))
      .then(() => this.#learnSent(row))
      .then(() => sendCall(row, via, this.#claimed))
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
        if (this.#leading) this.wake();
        else if (this.#inFlight.size === 0 && !this.#pumping) this.#notifyIdle();
      });
    this.#inFlight.set(row.id, done);
  }

  /** After a handover: waits until the previous dispatcher's calls to the row's chat no longer count. */
  #chatFree(row: OutboxRow): Promise<void> {
    const now = this.#o.clock.now();
    const wait = this.#gate ? this.#gate.chatFreeAt(row.chatId, now) - now : 0;
    if (wait <= 0) return Promise.resolve();
    return new Promise((resolve) => this.#o.clock.setTimer(resolve, wait));
  }

  /** A call in doubt: waits until a request its last dispatcher made can no longer be on its way. */
  #arrived(row: OutboxRow): Promise<void> {
    if (!inDoubt(row)) return Promise.resolve();
    const wait = row.sentAt! + (this.#o.inDoubtSettleMs ?? IN_DOUBT_SETTLE_MS) - this.#o.clock.now();
    if (wait <= 0) return Promise.resolve();
    return new Promise((resolve) => this.#o.clock.setTimer(resolve, wait));
  }

  /**
   * Before a resend: messages earlier calls to the chat sent are theirs, not this one's, so the read-back
   * must not take them. Looks back from the call's first send (`sentAt`, kept across handovers).
   */
  async #learnSent(row: OutboxRow): Promise<void> {
    if (!inDoubt(row) || row.op !== 'sendMessage' || row.chatId === null) return;
    const since = (row.sentAt ?? this.#o.clock.now()) - LEARN_WINDOW_MS;
    const results = await this.#o.outbox.sentResults(row.chatId, since, row.id);
    for (const mid of sentMessageIds(results)) this.#claimed.add(mid);
  }

  /** The scheduler stopped before the call went out: the row is pending again, sent by the next claim. */
  async #release(row: OutboxRow): Promise<void> {
    try {
      await this.#o.outbox.release(row);
    } catch (error) {
      // Left `sending`: sent again by the next dispatcher, through the read-back for a message.
      this.#o.logger?.error({ outboxId: row.id, err: error }, 'could not give back an unsent call');
    }
  }

  async #finish(row: OutboxRow, outcome: CallOutcome): Promise<void> {
    const now = this.#o.clock.now();
    try {
      const recorded = await this.#o.outbox.finish(
        row,
        finishOf(row, outcome),
        resultEventOf(row, outcome),
        now,
      );
      if (!recorded) {
        // The store closed: the row stays `sending` and is sent again at the next start.
        this.#o.logger?.info({ outboxId: row.id, op: row.op }, 'a call answered after the store closed');
        return;
      }
    } catch (error) {
      // The store is failing: the row stays `sending`: the next dispatcher sends it again.
      this.#o.logger?.error({ outboxId: row.id, err: error }, 'could not record a call outcome');
      return;
    }
    if (!outcome.ok) {
      this.#o.logger?.warn(
        { conversation: row.conversationKey, outboxId: row.id, op: row.op, error: outcome.error },
        'call failed for good',
      );
    }
    if (row.ref) this.#o.onResult?.();
    this.#o.onOutcome({
      outboxId: row.id,
      conversationKey: row.conversationKey,
      op: row.op,
      status: outcome.ok ? 'done' : 'failed',
      attempts: row.attempts,
      ...(outcome.ok ? {} : { error: outcome.error }),
    });
  }

  #clearResumeTimer(): void {
    if (this.#resumeTimer === undefined) return;
    this.#o.clock.clearTimer(this.#resumeTimer);
    this.#resumeTimer = undefined;
  }

  #notifyIdle(): void {
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}
