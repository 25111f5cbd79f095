/**
 * Long polling: GET /updates in a loop. Each batch is committed to the inbox in the same transaction as
 * the marker that acknowledges it, so a crash at any moment neither loses nor skips an update (a batch
 * fetched but not committed is fetched again with the old marker, and de-duplication absorbs overlaps).
 */
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import type { BotApi } from '../client/client.ts';
import { ApiError, NetworkError } from '../client/errors.ts';
import type { UpdatesResult } from '../client/operation-types.ts';
import type { UpdateType } from '../client/schemas/index.ts';
import { BotflowError } from '../errors/index.ts';
import type { OnAccepted } from '../inbox/inbox-writer.ts';
import { type ConversationKeyStrategy, dedupeKey } from '../inbox/keys.ts';
import { updateEntry } from '../inbox/update-entry.ts';
import { type AppendResult, type InboxEntry, InboxStore } from '../store/inbox.ts';
import { KV_KEYS, KvStore } from '../store/kv.ts';

/** Polling cannot go on: a webhook subscription blocks it, the token is refused, or the request is wrong. */
export class PollingError extends BotflowError {
  override name = 'PollingError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_POLLING_FAILED', message, options);
  }
}

/** Options of `startPolling`. */
export interface PollingOptions {
  /** The client; only `getUpdates` and `getSubscriptions` are used. */
  api: Pick<BotApi, 'getUpdates' | 'getSubscriptions'>;
  /** The SQLite database the inbox and the marker live in; or `store` for another one. */
  db?: Database.Database;
  /** Where batches and the marker are committed instead of `db` (PostgreSQL: see src/runtime/app-store.ts). */
  store?: PollingStore;
  /** Update types to receive (default: all). */
  types?: UpdateType[];
  /** Updates per request, 1..1000 (default 100). */
  limit?: number;
  /** Seconds the platform holds a request open when there is nothing new, 0..90 (default 30). */
  timeout?: number;
  /** How conversation keys are derived (default `user-in-chat`). */
  conversationKey?: ConversationKeyStrategy;
  /** Called after each commit that added rows: the engine's wake-up call. */
  onAccepted?: OnAccepted;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** First delay after a failure, doubled per failure up to `maxBackoffMs` (defaults 500 ms and 30 s). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** The `kv` key of the stored marker (default `KV_KEYS.pollingMarker`); one per bot sharing a database. */
  markerKey?: string;
}

/** Where a poller commits: the inbox entries of a batch and the next marker, together. */
export interface PollingStore {
  /** The marker of the last committed batch, read before polling starts (undefined: never polled). */
  marker: number | undefined;
  /** Commits `entries` and `next` in one transaction (`next` undefined: keep the stored marker). */
  commit(entries: InboxEntry[], next: number | undefined): AppendResult[] | Promise<AppendResult[]>;
}

/** The poller's store over a SQLite database: the inbox and the `kv` marker in one transaction. */
export function sqlitePollingStore(
  db: Database.Database,
  markerKey: string = KV_KEYS.pollingMarker,
): PollingStore {
  const inbox = new InboxStore(db);
  const kv = new KvStore(db);
  const stored = kv.get(markerKey);
  const commit = db.transaction((entries: InboxEntry[], next: number | undefined) => {
    const results = inbox.append(entries);
    // An answer without a marker acknowledges nothing: keep the old one (never reset it to 0).
    if (next !== undefined) kv.set(markerKey, String(next));
    return results;
  });
  return {
    marker: stored === undefined ? undefined : Number(stored),
    commit: (entries, next) => commit.immediate(entries, next),
  };
}

/** A running poller. */
export interface PollingHandle {
  /** Ends polling: aborts the request in flight (its updates stay on the platform) and resolves when the loop has ended. */
  stop(): Promise<void>;
  /** Settles when the loop ends: resolves after `stop()`, rejects with `PollingError` when polling cannot go on. */
  readonly done: Promise<void>;
  /** The marker of the last committed batch (undefined before the first one). */
  readonly marker: number | undefined;
  /**
   * Settles once a marker is held (stored from an earlier run, or got by the first-start handshake):
   * from then on nothing that happens is skipped. Announce the bot as running after this.
   */
  readonly ready: Promise<void>;
}

function blockedMessage(urls: string[]): string {
  const list = urls.length ? `: ${urls.join(', ')}` : '';
  const remove = urls.length
    ? urls.map((u) => `botflow webhook delete ${u}`).join('; ')
    : 'botflow webhook list';
  return (
    `long polling is refused while a webhook subscription is active${list}. ` +
    `Either run in webhook mode, or remove the subscription (${remove}) and start again.`
  );
}

/** Inbox entries of one GET /updates answer (undecodable updates too: nothing received is dropped). */
export function entriesOf(result: UpdatesResult, strategy: ConversationKeyStrategy): InboxEntry[] {
  const raws: unknown[] = result.updates.map((u) => (u.update_type === 'unknown' ? u.raw : u));
  for (const broken of result.undecodable) raws.push(broken.raw);
  return raws.map((raw) => {
    const payload = JSON.stringify(raw);
    try {
      return updateEntry(payload, strategy, raw);
    } catch {
      // Not even an update_type: kept for people to look at; the engine will find no conversation for it.
      return { kind: 'update', dedupeKey: dedupeKey(raw), conversationKey: null, updateType: null, payload };
    }
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The wait before fetching again after `error`; throws PollingError when retrying cannot help (a 4xx). */
function retryDelay(error: unknown, failures: number, initialBackoff: number, maxBackoff: number): number {
  const backoff = Math.min(maxBackoff, initialBackoff * 2 ** failures);
  if (error instanceof ApiError) {
    if (error.status === 429) return Math.max(backoff, (error.retryAfter ?? 0) * 1000);
    if (error.status < 500) {
      throw new PollingError(`long polling stopped: ${error.message}`, { cause: error });
    }
    return backoff;
  }
  if (error instanceof NetworkError) return backoff;
  // A 2xx answer that did not decode, or something unexpected: retrying is the safe choice.
  return backoff;
}

/**
 * One GET /updates. Without a marker the platform answers only the most recent update: the very first
 * poll is a handshake that returns at once (timeout 0) to get a marker, so that nothing after it is skipped.
 */
function fetchBatch(options: PollingOptions, marker: number | undefined, signal: AbortSignal) {
  return options.api.getUpdates(
    {
      ...(marker !== undefined ? { marker } : {}),
      limit: options.limit ?? 100,
      timeout: marker === undefined ? 0 : (options.timeout ?? 30),
      ...(options.types?.length ? { types: options.types } : {}),
    },
    { signal },
  );
}

/** The first poll of a database kept only the most recent pending update: said once, as a warning. */
function warnFirstPoll(log: PollingOptions['logger'], result: UpdatesResult): void {
  if (result.updates.length === 0) return;
  log?.warn(
    { kept: result.updates.length },
    'first long poll of this database: the platform gives only the most recent pending update without a marker, ' +
      'so updates queued before this bot first started may have been skipped (start the bot before announcing it)',
  );
}

/** Tells `onAccepted` which of the committed entries were new (a listener's error is logged, not thrown). */
function announceAccepted(options: PollingOptions, results: AppendResult[], entries: InboxEntry[]): void {
  const added = results.flatMap((r, i) =>
    r.id === null ? [] : [{ id: r.id, payload: entries[i]!.payload }],
  );
  if (added.length === 0) return;
  try {
    options.onAccepted?.({
      ids: added.map((a) => a.id),
      payloads: added.map((a) => a.payload),
      duplicates: results.length - added.length,
    });
  } catch (error) {
    options.logger?.error({ err: error }, 'onAccepted listener threw');
  }
}

/**
 * Starts polling from the stored marker. With none stored (the very first start), the first request
 * is sent without a marker and with timeout 0: the platform then answers only its most recent update
 * and a marker, and every later request carries a marker, so nothing after the first start is lost;
 * updates queued before it may be (a warning says so). Refuses at once (`done` rejects with PollingError) when a webhook
 * subscription exists, naming it and saying how to remove it.
 */
export function startPolling(options: PollingOptions): PollingHandle {
  if (!options.store && !options.db)
    throw new BotflowError('BOTFLOW_OPTIONS_INVALID', 'startPolling: give it a database (db) or a store');
  const store = options.store ?? sqlitePollingStore(options.db!, options.markerKey);
  const strategy = options.conversationKey ?? 'user-in-chat';
  const initialBackoff = options.initialBackoffMs ?? 500;
  const maxBackoff = options.maxBackoffMs ?? 30_000;
  const log = options.logger;
  const stopping = new AbortController();
  let marker = store.marker;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  if (marker !== undefined) markReady();

  async function refuseIfSubscribed(signal: AbortSignal): Promise<void> {
    const { subscriptions } = await options.api.getSubscriptions({ signal });
    if (subscriptions.length > 0) throw new PollingError(blockedMessage(subscriptions.map((s) => s.url)));
  }

  async function loop(): Promise<void> {
    const { signal } = stopping;
    let checked = false;
    let failures = 0;
    while (!signal.aborted) {
      let result: UpdatesResult;
      try {
        if (!checked) {
          await refuseIfSubscribed(signal);
          checked = true;
          log?.info({ marker }, 'long polling started');
        }
        result = await fetchBatch(options, marker, signal);
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof PollingError) throw error;
        if (error instanceof ApiError && error.status === 405) {
          await refuseIfSubscribed(signal); // names the subscription when it can
          throw new PollingError(blockedMessage([]), { cause: error });
        }
        const delay = retryDelay(error, failures++, initialBackoff, maxBackoff);
        log?.warn({ err: error, retryInMs: delay, failures }, 'GET /updates failed; retrying');
        await sleep(delay, signal);
        continue;
      }
      let results: AppendResult[];
      let entries: InboxEntry[];
      try {
        entries = entriesOf(result, strategy);
        results = await store.commit(entries, result.marker);
      } catch (error) {
        // Nothing committed and the marker did not move: the same batch is fetched again.
        const delay = Math.min(maxBackoff, initialBackoff * 2 ** failures++);
        log?.error({ err: error, retryInMs: delay }, 'inbox commit failed; fetching the batch again');
        await sleep(delay, signal);
        continue;
      }
      failures = 0;
      if (marker === undefined) warnFirstPoll(log, result);
      if (result.marker !== undefined) {
        marker = result.marker;
        markReady();
      }
      announceAccepted(options, results, entries);
    }
  }

  const done = loop().finally(() => {
    markReady();
    log?.info({ marker }, 'long polling stopped');
  });
  done.catch(() => {}); // reported through `done`; never an unhandled rejection
  return {
    async stop() {
      stopping.abort();
      await done.catch(() => {});
    },
    done,
    ready,
    get marker() {
      return marker;
    },
  };
}
