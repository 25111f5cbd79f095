/**
 * Group commit for the inbox: entries submitted during one turn of the event loop are committed together
 * in one transaction (one fsync), then every submitter learns its outcome. This is what lets the webhook
 * answer only after a durable commit and still take thousands of updates per second.
 */
import type { Logger } from 'pino';
import { BotflowError } from '../errors/index.ts';
import type { AppendResult, InboxEntry, InboxStore } from '../store/inbox.ts';

/** What one commit added: the engine's cue to look at the inbox. */
export interface AcceptedBatch {
  /** Ids of the new rows, in arrival order. */
  ids: number[];
  /** Their payloads (the updates' JSON), in the same order: `botflow run --record` writes them. */
  payloads: string[];
  /** How many submitted entries were duplicates and were ignored. */
  duplicates: number;
}

/** Called after each commit that added at least one row. Must not throw (errors are logged and dropped). */
export type OnAccepted = (batch: AcceptedBatch) => void;

/** Commits a batch of entries somewhere else than this thread's connection (a writer thread). */
export type InboxCommit = (entries: InboxEntry[]) => Promise<AppendResult[]>;

/** Options of `InboxWriter`. */
export interface InboxWriterOptions {
  /** The SQLite inbox appended to on this thread; not needed with `commit`. */
  inbox?: InboxStore;
  /**
   * Commits batches instead of `inbox.append` on this thread: the engine's writer thread
   * (`writer.append`), so intake never waits for the engine's write lock, or PostgreSQL
   * (`PgInbox.append`). Batches stay in order.
   */
  commit?: InboxCommit;
  /** Commit at once when this many entries are waiting, without waiting for the end of the turn (default 500). */
  maxBatch?: number;
  onAccepted?: OnAccepted;
  logger?: Pick<Logger, 'error'>;
}

interface Waiting {
  entry: InboxEntry;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** Collects inbox entries and commits them in batches; `submit()` resolves once the entry is durable. */
export class InboxWriter {
  private queue: Waiting[] = [];
  private scheduled = false;
  private readonly maxBatch: number;
  /** Settles when every batch handed to `commit` so far is committed (or failed). */
  private committing: Promise<void> = Promise.resolve();
  /** A batch is with `commit` and not answered yet. */
  private inFlight = false;

  constructor(private readonly options: InboxWriterOptions) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 500);
  }

  /** Queues `entry`; resolves after the commit that stored it (or found it a duplicate), rejects if that commit failed. */
  submit(entry: InboxEntry): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      if (this.queue.length >= this.maxBatch) void this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /**
   * Commits everything queued now: synchronously on this thread, or through `commit` (the returned promise
   * settles when that batch is committed; it never rejects, submitters learn failures).
   */
  flush(): Promise<void> {
    this.scheduled = false;
    if (this.options.commit) return this.#commitElsewhere();
    const batch = this.queue;
    if (batch.length === 0) return this.committing;
    this.queue = [];
    const entries = batch.map((w) => w.entry);
    let results: AppendResult[];
    try {
      if (!this.options.inbox)
        throw new BotflowError('BOTFLOW_OPTIONS_INVALID', 'InboxWriter needs an inbox or a commit function');
      results = this.options.inbox.append(entries);
    } catch (error) {
      this.#fail(batch, error);
      return this.committing;
    }
    this.#settle(batch, results);
    return this.committing;
  }

  /**
   * One batch at a time goes to `commit`; what arrives meanwhile waits and goes as the next batch when the
   * previous one is answered. Batches grow with the commit's latency, so a thread hop costs little per entry.
   */
  #commitElsewhere(): Promise<void> {
    if (!this.inFlight && this.queue.length > 0) this.committing = this.#send();
    return this.committing;
  }

  /** Sends the queue to `commit`, then whatever queued up meanwhile; settles when the queue is empty. */
  async #send(): Promise<void> {
    this.inFlight = true;
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        this.#settle(batch, await this.options.commit!(batch.map((w) => w.entry)));
      } catch (error) {
        this.#fail(batch, error);
      }
    }
    this.inFlight = false;
  }

  #fail(batch: Waiting[], error: unknown): void {
    this.options.logger?.error({ err: error, entries: batch.length }, 'inbox commit failed');
    for (const w of batch) w.reject(error);
  }

  #settle(batch: Waiting[], results: AppendResult[]): void {
    const ids: number[] = [];
    const payloads: string[] = [];
    for (let i = 0; i < batch.length; i++) {
      const result = results[i]!;
      if (result.id !== null) {
        ids.push(result.id);
        payloads.push(batch[i]!.entry.payload);
      }
      batch[i]!.resolve(result);
    }
    if (ids.length > 0 && this.options.onAccepted) {
      try {
        this.options.onAccepted({ ids, payloads, duplicates: batch.length - ids.length });
      } catch (error) {
        this.options.logger?.error({ err: error }, 'onAccepted listener threw');
      }
    }
  }

  /** Entries waiting for their commit. */
  get waiting(): number {
    return this.queue.length;
  }
}
