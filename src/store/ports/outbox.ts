/**
 * The outbox as the dispatcher needs it, whichever database holds it: claim the head call of each order
 * key (a chat, or one callback), settle a call with its result event in one transaction, give back a call
 * that never went out. The SQLite adapter (`SqliteOutbox`) answers at once; the PostgreSQL one
 * (`PgOutbox`) answers with promises and checks the dispatcher lease in its claims.
 *
 * A row's `sentAt` is when its call was FIRST handed over, by any dispatcher: a re-claim never moves it
 * forward and a release never forgets it once an earlier claim may have sent the call (issue 28), so the
 * read-back of a resent message looks back far enough to find the first copy. Where the outbox has
 * `markSent` (PostgreSQL), "handed over" means handed to the transport, not merely claimed (issue 36): a
 * call claimed by a dispatcher that died before sending it has no `sentAt`, and is sent again without
 * reading the chat back (`inDoubt`).
 */
import type { MaybePromise } from './index.ts';

/** An outbox row to insert. `args` is the JSON argument object. */
export interface NewOutboxRow {
  conversationKey: string;
  revision: number;
  seq: number;
  orderKey: string;
  chatId: number | null;
  kind: 'api' | 'upload_and_send';
  op: string;
  args: string;
  ref: string | null;
  priority: string;
  /** Defaults to `<conversation>:<revision>:<seq>`. */
  idempotencyKey?: string;
  createdAt: number;
}

/** An outbox row as stored. */
export interface OutboxRow extends NewOutboxRow {
  id: number;
  idempotencyKey: string;
  status: 'pending' | 'sending' | 'done' | 'failed' | 'dropped';
  /** Claims counted (a claim given back unsent does not count). 2+ when a resend. */
  attempts: number;
  result: string | null;
  error: string | null;
  /** When the call was first handed over (ms), by whichever dispatcher: the read-back's window starts here. */
  sentAt: number | null;
  finishedAt: number | null;
}

/** How a call ended, as its row records it (`finishOf`). */
export interface OutboxFinish {
  status: 'done' | 'failed';
  result?: string;
  error?: string;
}

/** What the dispatcher needs from the outbox. Every method may answer now or with a promise. */
export interface OutboxPort {
  /**
   * Marks in flight (attempt counted, `sentAt` kept when set) the head row of up to `limit` order keys not
   * in `busyKeys` and returns them, in claim order: by the rank of their priority in `order` (the one
   * priority order, most urgent first; the dispatcher passes `PRIORITIES`), oldest first within a rank.
   * `member` names the claiming dispatcher (PostgreSQL: it must hold the dispatcher lease; rows in flight
   * at another live member stay theirs).
   */
  claimHeads(
    member: string,
    busyKeys: readonly string[],
    limit: number,
    now: number,
    order?: readonly string[],
  ): MaybePromise<OutboxRow[]>;
  /** How many calls other live members still have in flight (the handover waits for them); 0 in one process. */
  othersSending(member: string): MaybePromise<number>;
  /**
   * Stored results of messages sent to `chatId` by rows before `beforeId` finished at or after `since`
   * (a resend learns which messages earlier calls already account for).
   */
  sentResults(chatId: number, since: number, beforeId: number): MaybePromise<(string | null)[]>;
  /**
   * Settles an in-flight row and, when `resultEvent` is given, adds its `effect_result` event to the inbox,
   * in ONE transaction. False when the store was closed and nothing was written (the row stays in flight:
   * the next dispatcher sends it again).
   */
  finish(
    row: OutboxRow,
    finish: OutboxFinish,
    resultEvent: string | undefined,
    now: number,
  ): MaybePromise<boolean>;
  /**
   * The call of a claimed row goes to the transport now (each attempt, before the request leaves): its
   * `sentAt` is set if it was not. Without it, a claim sets `sentAt` (SQLite: one process, a claimed call
   * goes out at once unless the process dies).
   */
  markSent?(row: OutboxRow, now: number): MaybePromise<void>;
  /**
   * Gives back a claimed row whose call never went out: pending again, this attempt not counted. Its
   * `sentAt` stays when an earlier claim may have sent the call. Nothing happens when the store is closed.
   */
  release(row: OutboxRow): MaybePromise<void>;
}

/**
 * Rows by the rank of their priority in `order` (most urgent first; a priority it does not name after
 * every one it names), oldest first within a rank: the order in which heads are claimed.
 */
export function claimOrder<R extends { id: number; priority: string }>(
  rows: R[],
  order: readonly string[],
): R[] {
  const rank = (p: string) => {
    const i = order.indexOf(p);
    return i < 0 ? order.length : i;
  };
  return rows.sort((a, b) => rank(a.priority) - rank(b.priority) || a.id - b.id);
}

/**
 * Whether a claimed row's call may already be on the platform: an earlier attempt handed it to the
 * transport (`sentAt`) and did not settle it. Only such a call is read back before it is sent again.
 */
export function inDoubt(row: Pick<OutboxRow, 'attempts' | 'sentAt'>): boolean {
  return row.attempts > 1 && row.sentAt !== null;
}
