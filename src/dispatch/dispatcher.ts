/**
 * The outbox dispatcher: sends committed API calls through the scheduler, one at a time per order key
 * (a chat, or one callback) and in commit order within it, many order keys at once. A row is marked
 * `sending` (committed) before it goes out and settled when the answer comes, so after a crash exactly
 * the rows that were in flight are sent again. Results a flow asked for (`ref`) come back through the
 * inbox as `effect_result` events, in the conversation's order like everything else.
 */
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { ApiError } from '../client/errors.ts';
import type { MediaSource } from '../client/upload.ts';
import { EngineInbox } from '../store/engine-inbox.ts';
import { type OutboxRow, OutboxStore } from '../store/outbox.ts';
import { DeadLetterError, type Job, type MediaKind } from './scheduler/types.ts';
import { ClaimedMessages, sendOnce } from './sent-once.ts';

/** Where calls go: the scheduler (`submit`) or anything with the same shape. */
export interface CallGateway {
  submit(job: Job): Promise<unknown>;
}

/** Uploads a file and resolves with the attachment request to put in a message. */
export type MediaUploader = (media: MediaSource) => Promise<Record<string, unknown>>;

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

function errorInfo(error: unknown): { code: string; message: string } {
  const e = error as {
    reason?: string;
    lastError?: unknown;
    code?: unknown;
    message?: string;
    name?: string;
  };
  const last = e?.lastError;
  if (last instanceof ApiError) return { code: last.code, message: String(e.message) };
  if (error instanceof ApiError) return { code: error.code, message: error.message };
  const code =
    typeof e?.reason === 'string' ? e.reason : typeof e?.code === 'string' ? e.code : (e?.name ?? 'error');
  return { code, message: String(e?.message ?? error) };
}

/** Sends the outbox. */
export class OutboxDispatcher {
  readonly #o: DispatcherOptions;
  readonly #outbox: OutboxStore;
  readonly #inbox: EngineInbox;
  readonly #busyKeys = new Set<string>();
  /** Messages sent or found by read-backs, so that a read-back never takes another call's message. */
  readonly #claimed = new ClaimedMessages();
  readonly #inFlight = new Map<number, Promise<void>>();
  readonly #settle: Database.Transaction<(row: OutboxRow, outcome: SettleArgs) => void>;
  #running = false;
  #pumpQueued = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: DispatcherOptions) {
    this.#o = options;
    this.#outbox = new OutboxStore(options.db);
    this.#inbox = new EngineInbox(options.db);
    this.#settle = options.db.transaction((row: OutboxRow, outcome: SettleArgs) => {
      const now = this.#o.now();
      this.#outbox.finish(
        row.id,
        {
          status: outcome.ok ? 'done' : 'failed',
          ...(outcome.ok && row.ref ? { result: JSON.stringify(outcome.result ?? null) } : {}),
          ...(outcome.ok ? {} : { error: `${outcome.error.code}: ${outcome.error.message}` }),
        },
        now,
      );
      if (row.ref) {
        this.#inbox.add({
          kind: 'effect_result',
          dedupeKey: `effect:${row.id}`,
          conversationKey: row.conversationKey,
          payload: JSON.stringify({
            outboxId: row.id,
            revision: row.revision,
            ref: row.ref,
            ok: outcome.ok,
            ...(outcome.ok ? { result: outcome.result ?? null } : { error: outcome.error }),
          }),
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
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.#inFlight.values()]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, Math.min(waitMs, 2_147_483_647)));
      }),
    ]);
    clearTimeout(timer);
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
    const done = this.#send(row)
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

  async #send(row: OutboxRow): Promise<unknown> {
    const args = JSON.parse(row.args) as Record<string, unknown>;
    const job = {
      op: row.op,
      args,
      priority: row.priority,
      ...(row.chatId !== null ? { chatId: row.chatId } : {}),
    } as Job;
    if (row.kind === 'api') {
      // A message is never shown twice: an ambiguous failure is resolved by reading the chat back.
      if (row.op === 'sendMessage' && row.chatId !== null)
        return sendOnce(
          this.#o.gateway,
          job,
          row.chatId,
          row.sentAt ?? this.#o.now(),
          row.attempts > 1,
          this.#claimed,
        );
      return this.#o.gateway.submit(job);
    }
    const { media, message, ...target } = args as {
      media: MediaSource;
      message: Record<string, unknown>;
    };
    if (!this.#o.upload)
      throw new Error('upload_and_send needs an uploader: give createEngine an api client');
    const attachment = await this.#o.upload(media);
    const attachments = [...(Array.isArray(message.attachments) ? message.attachments : []), attachment];
    const result = await this.#o.gateway.submit({
      ...job,
      args: { ...target, ...message, attachments },
      mediaKind: media.type as MediaKind,
    } as Job);
    return { ...(result as object), attachment };
  }

  /** The scheduler stopped before the call went out: the row is pending again, sent at the next start. */
  #release(row: OutboxRow): void {
    if (!this.#o.db.open) return; // left `sending`: sent again at the next start, still never sent twice
    this.#outbox.release(row.id);
  }

  #finish(row: OutboxRow, outcome: SettleArgs): void {
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

type SettleArgs = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };
