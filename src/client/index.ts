/**
 * `botflow-engine/client`, the Bot API on its own: the typed client and its errors, the limits checked
 * before sending, the rate-limit scheduler, uploads, and the platform's main types (docs/client.md). Each
 * name here is documented with an example (on its declaration; the scheduler's two here, its files being
 * at their length), and api/client.api.md lists them with their signatures.
 * What this entry exported before 0.3 and no longer publishes is in deprecated.ts (gone in 0.4).
 */

// botflow's errors: one class, one catalogue of codes (docs/errors.md).
export { type BotflowCode, BotflowError, CATALOGUE, isBotflowError } from '../errors/index.ts';
export { BotApi } from './client.ts';
// The client: one method per operation, `call(op, args)` by name.
export { type BotApiOptions, type CallOptions, isFailure } from './client-core.ts';
export * from './deprecated.ts';
export { ApiError, type LimitViolation, NetworkError, ResponseDecodeError, UsageError } from './errors.ts';
export {
  checkAttachments,
  checkButton,
  checkKeyboard,
  checkNewMessageBody,
  checkOperationArgs,
  checkText,
} from './limits.ts';
export type { OperationArgs, OperationResult } from './operation-types.ts';
export type { OperationName } from './operations.ts';
// Sending at the platform's pace.
export type { SchedulerMetrics } from './scheduler/metrics.ts';
export type { SchedulerOptions } from './scheduler/options.ts';
export {
  /**
   * Sends every call as soon as the platform's limits allow and never sooner: 30 calls per second in all,
   * 2 per second per chat, in order per chat, replies before bulk sends (docs/client.md).
   *
   * @example
   * ```ts
   * import { BotApi, Scheduler } from 'botflow-engine/client';
   *
   * const api = new BotApi({ token: process.env.BOT_TOKEN ?? '', baseUrl: 'https://platform-api2.max.ru' });
   * const scheduler = new Scheduler({ api }); // 30 calls/s in all, 2/s per chat
   * const sent = await scheduler.submit({ op: 'sendMessage', args: { chat_id: 42, text: 'Hello' } });
   * console.log(sent.message.body.mid);
   * await scheduler.drain(10_000);
   * scheduler.close();
   * ```
   */
  Scheduler,
} from './scheduler/scheduler.ts';
export {
  /**
   * A job the scheduler gave up on: the reason, the last error seen, and what the job was.
   *
   * @example
   * ```ts
   * import { BotApi, DeadLetterError, Scheduler } from 'botflow-engine/client';
   *
   * const api = new BotApi({ token: process.env.BOT_TOKEN ?? '', baseUrl: 'https://platform-api2.max.ru' });
   * const scheduler = new Scheduler({ api });
   * await scheduler
   *   .submit({ op: 'sendMessage', args: { chat_id: 42, text: 'News' }, priority: 'bulk', ttlMs: 3_600_000 })
   *   .catch((error) => {
   *     if (error instanceof DeadLetterError) console.warn('not delivered:', error.reason);
   *   });
   * ```
   */
  DeadLetterError,
  type DeadLetterReason,
  type Job,
  type Limits,
  type MediaKind,
  type Priority,
} from './scheduler/types.ts';
// The platform's objects (zod schemas and their types).
export { DecodeError } from './schemas/decode.ts';
export { Button, Keyboard } from './schemas/keyboard.ts';
export { Callback, Chat, Message, NewMessageBody } from './schemas/messages.ts';
export { User } from './schemas/objects.ts';
export { membershipChange, type Update } from './schemas/updates.ts';
export {
  type MediaSource,
  type UploadedAttachment,
  type UploadOptions,
  type UploadProgress,
  uploadMedia,
} from './upload.ts';
