/**
 * The outbox port over one SQLite database (one process sends: no lease, no other members). Answers at
 * once: claims and settlements are better-sqlite3 transactions. A closed database (the process is
 * stopping) claims nothing and records nothing: rows left `sending` are sent again at the next start.
 */
import type Database from 'better-sqlite3';
import { EngineInbox } from '../engine-inbox.ts';
import { type OutboxRow, OutboxStore } from '../outbox.ts';
import { claimOrder, type OutboxFinish, type OutboxPort } from '../ports/outbox.ts';

/** Open rows read per page while looking for the heads of order keys. */
const SCAN_PAGE = 500;

/** The dispatcher's outbox on SQLite. */
export class SqliteOutbox implements OutboxPort {
  readonly #db: Database.Database;
  readonly #outbox: OutboxStore;
  readonly #inbox: EngineInbox;
  readonly #claimHeads: Database.Transaction<
    (busy: Set<string>, limit: number, now: number, order: readonly string[]) => OutboxRow[]
  >;
  readonly #finish: Database.Transaction<
    (row: OutboxRow, finish: OutboxFinish, resultEvent: string | undefined, now: number) => void
  >;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#outbox = new OutboxStore(db);
    this.#inbox = new EngineInbox(db);
    this.#claimHeads = db.transaction(
      (busy: Set<string>, limit: number, now: number, order: readonly string[]) => {
        const heads = claimOrder(this.#heads(busy), order);
        const claimed: OutboxRow[] = [];
        for (const row of heads) {
          if (claimed.length >= limit) break;
          if (this.#outbox.claim(row.id, now))
            claimed.push({
              ...row,
              status: 'sending',
              attempts: row.attempts + 1,
              sentAt: row.sentAt ?? now,
            });
        }
        return claimed;
      },
    );
    this.#finish = db.transaction(
      (row: OutboxRow, finish: OutboxFinish, resultEvent: string | undefined, now: number) => {
        this.#outbox.finish(row.id, finish, now);
        if (resultEvent === undefined) return;
        this.#inbox.add({
          kind: 'effect_result',
          dedupeKey: `effect:${row.id}`,
          conversationKey: row.conversationKey,
          payload: resultEvent,
          receivedAt: now,
        });
      },
    );
  }

  claimHeads(
    _member: string,
    busyKeys: readonly string[],
    limit: number,
    now: number,
    order: readonly string[] = [],
  ): OutboxRow[] {
    if (!this.#db.open || limit <= 0) return [];
    return this.#claimHeads.immediate(new Set(busyKeys), limit, now, order);
  }

  /** The head (first open row) of every order key not in `busy`, in id order. */
  #heads(busy: Set<string>): OutboxRow[] {
    const heads: OutboxRow[] = [];
    const seen = new Set<string>();
    for (let afterId = 0; ; ) {
      const rows = this.#outbox.open(afterId, SCAN_PAGE);
      for (const row of rows) {
        afterId = row.id;
        // The first open row of an order key is its head; later rows wait for it.
        if (seen.has(row.orderKey)) continue;
        seen.add(row.orderKey);
        if (!busy.has(row.orderKey)) heads.push(row);
      }
      if (rows.length < SCAN_PAGE) return heads;
    }
  }

  /** One process sends: nobody else has calls in flight. */
  othersSending(_member: string): number {
    return 0;
  }

  sentResults(chatId: number, since: number, beforeId: number): (string | null)[] {
    return this.#outbox.sentResults(chatId, since, beforeId);
  }

  finish(row: OutboxRow, finish: OutboxFinish, resultEvent: string | undefined, now: number): boolean {
    if (!this.#db.open) return false;
    this.#finish.immediate(row, finish, resultEvent, now);
    return true;
  }

  release(row: OutboxRow): void {
    if (this.#db.open) this.#outbox.release(row.id);
  }
}
