/**
 * The vocabulary of the dispatch scheduler: what a caller submits (a Job), how it is limited, and how a
 * job that could not be delivered is reported (DeadLetterError).
 */

import { BotflowError } from '../../errors/index.ts';
import type { CallOptions } from '../client-core.ts';
import type { OperationArgs, OperationResult } from '../operation-types.ts';
import type { OperationName } from '../operations.ts';

export type { OperationArgs, OperationResult } from '../operation-types.ts';

/** The part of the API client the scheduler needs: one call, cancellable (`BotApi` fits). */
export interface ApiCaller {
  call<Op extends OperationName>(
    op: Op,
    args: OperationArgs<Op>,
    options?: CallOptions,
  ): Promise<OperationResult<Op>>;
}

/**
 * Service classes: THE priority order of every call that shares the bot's request budget (30/s), most
 * urgent first. Written once, here; the batch (interactive inbox entries before campaign entries), the
 * outbox claim (the dispatcher passes this list to the store) and the scheduler all follow it:
 * 0. `intake`: the long poll (`getUpdates`), which brings in what people write: one request at a time
 *    (a second each at most), and without it no reply can happen, so it never waits behind them;
 * 1. `reply`: a message that answers a person (and reads the flow makes, such as `getChat`);
 * 2. `edit`: an edit or delete, most often the visible answer to a press (`render: edit`); it shares its
 *    chat's FIFO with replies, so their relative order is kept;
 * 3. `callback`: a callback answer (the button's spinner stops);
 * 4. `typing`: a chat action ("typing…"), worth little once late;
 * 5. `readback`: a read-back of the send-once check (getMessages / getComments before a resend);
 * 6. `bulk`: campaigns and other proactive sends: what the others leave of the budget.
 */
export type Priority = 'intake' | 'reply' | 'edit' | 'callback' | 'typing' | 'readback' | 'bulk';
export const PRIORITIES: readonly Priority[] = [
  'intake',
  'reply',
  'edit',
  'callback',
  'typing',
  'readback',
  'bulk',
];

/** Media kinds of the upload flow; they set how long `attachment.not.ready` is retried. */
export type MediaKind = 'image' | 'video' | 'audio' | 'file';

/** One API call to send through the scheduler. */
export interface Job<Op extends OperationName = OperationName> {
  op: Op;
  args: OperationArgs<Op>;
  /**
   * The chat this call counts against (chat-scoped operations). Derived from `args.chat_id`, then
   * `args.user_id`, when absent. Give it for callback answers (the chat of the pressed message) so
   * they respect the per-chat limit.
   */
  chatId?: number;
  /** Service class; derived from the operation when absent (see `defaultPriority`). */
  priority?: Priority;
  /** How long the call may wait in total before it is dead-lettered; defaults per priority. */
  ttlMs?: number;
  /**
   * What to do when a non-idempotent call (a send) was written but no answer came: resend and risk
   * a duplicate (`at-least-once`, the default) or give up and report it (`at-most-once`).
   */
  sendPolicy?: 'at-least-once' | 'at-most-once';
  /** Media the call carries; sets the `attachment.not.ready` retry budget. Derived from attachments. */
  mediaKind?: MediaKind;
  /** Cancels the call while it waits or is in flight. */
  signal?: AbortSignal;
  /**
   * Runs just before each attempt goes out, which waits for it (a rejection fails the attempt unsent): the
   * outbox records there that the call may reach the platform from now on.
   */
  onStart?: () => Promise<void> | void;
}

/** Rate limits of the platform, as configuration. */
export interface Limits {
  /** Requests in any window, all operations together (platform: 30). */
  global: number;
  /** Chat-scoped operations per chat in any window (platform: 2). */
  perChat: number;
  /** Window length in ms (platform: 1000). */
  windowMs?: number;
  /** Milliseconds added to every window, against clock rounding between this process and the platform (default 5). */
  safetyMargin?: number;
}

/** Why a job was given up. */
export type DeadLetterReason =
  | 'rejected' // the platform refused it (4xx other than 429 and attachment.not.ready)
  | 'expired' // its time-to-live passed while it waited
  | 'rate-limited' // Retry-After would outlast its time-to-live
  | 'attachment-not-ready' // the media was still processing when the retry budget ran out
  | 'network' // the request could not be sent after the allowed retries
  | 'ambiguous' // sent without an answer, and the job allows at most one delivery
  | 'server-error' // 5xx answers after the allowed retries
  | 'aborted' // the caller's signal fired
  | 'closed' // the scheduler was closed before the job ran
  | 'superseded'; // a chat action ("typing…") replaced while queued by a newer one for the same chat

/** A job the scheduler gave up on: the reason, the last error seen, and what the job was. */
export class DeadLetterError extends BotflowError {
  override readonly name = 'DeadLetterError';
  constructor(
    readonly reason: DeadLetterReason,
    readonly operation: string,
    readonly chatId: number | undefined,
    readonly lastError: unknown,
    detail: string,
    /** Whether the call was ever sent (a job closed while queued was not: safe to send later). */
    readonly attempted = false,
  ) {
    super(
      'BOTFLOW_DEAD_LETTER',
      `${operation}${chatId === undefined ? '' : ` for chat ${chatId}`} dead-lettered (${reason}): ${detail}`,
    );
  }
}

/** A record of one dead letter, kept (bounded) for metrics. */
export interface DeadLetterRecord {
  at: number;
  operation: string;
  chatId: number | undefined;
  reason: DeadLetterReason;
  message: string;
}

/** A unit of work that is not an API call but must still respect the global window (an upload host POST). */
export interface Task<T> {
  run: (signal: AbortSignal | undefined) => Promise<T>;
  priority?: Priority;
  ttlMs?: number;
  signal?: AbortSignal;
  /** Shown in metrics and dead letters. */
  label?: string;
}
