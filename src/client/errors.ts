/**
 * The four ways a Bot API call can fail, as distinct classes so that callers (the scheduler, the
 * outbox, people reading logs) can tell them apart with `instanceof`:
 * - `ApiError`: the platform answered with a non-2xx status (carries status, code, Retry-After);
 * - `NetworkError`: no answer came; `sent` says whether the request may have reached the server;
 * - `UsageError`: the client refused the call before sending anything (limits, target rules);
 * - `ResponseDecodeError`: the platform answered 2xx but the body does not have the expected shape.
 * None of them ever carries the bot token. They are catalogue errors (src/errors/): ApiError and NetworkError
 * keep their own `code` (the platform's, the socket's) and carry the catalogue's in `botflowCode`.
 */

import { BotflowError } from '../errors/botflow-error.ts';
import { brandClass } from '../errors/brand.ts';
import { DecodeError } from './schemas/decode.ts';

/**
 * The platform answered with an error status.
 *
 * @example
 * ```ts
 * import { ApiError, BotApi } from 'botflow-engine/client';
 *
 * const api = new BotApi({ token: process.env.BOT_TOKEN ?? '', baseUrl: 'https://platform-api2.max.ru' });
 * try {
 *   await api.sendMessage({ chat_id: 42, text: 'Hello' });
 * } catch (error) {
 *   if (error instanceof ApiError && error.isRateLimited) console.warn(`retry in ${error.retryAfter} s`);
 *   else if (error instanceof ApiError) console.error(error.status, error.code, error.platformMessage);
 * }
 * ```
 */
export class ApiError extends BotflowError {
  override name = 'ApiError';
  /** HTTP status, e.g. 400, 401, 403, 404, 429, 500. */
  readonly status: number;
  /** The platform's error code (`verify.token`, `attachment.not.ready`, …) or `http.<status>` when the body had none. */
  override readonly code: string;
  /** The platform's own message, as it came (may be empty). */
  readonly platformMessage: string;
  /** Seconds to wait before repeating, from the Retry-After header (429, sometimes 503). */
  readonly retryAfter?: number;
  /** The operation that failed, e.g. `sendMessage`. */
  readonly operation: string;
  /** The response body as text (first 2000 characters), for diagnosis. */
  readonly body: string;

  constructor(init: {
    operation: string;
    status: number;
    code: string;
    platformMessage: string;
    retryAfter?: number;
    body: string;
  }) {
    const detail = init.platformMessage ? `: ${init.platformMessage}` : '';
    const wait = init.retryAfter !== undefined ? ` (retry after ${init.retryAfter} s)` : '';
    super(
      'BOTFLOW_API_ERROR',
      `${init.operation} failed with HTTP ${init.status} ${init.code}${detail}${wait}`,
    );
    this.operation = init.operation;
    this.status = init.status;
    this.code = init.code;
    this.platformMessage = init.platformMessage;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
    this.body = init.body;
  }

  /** True for 429 (too many requests): wait `retryAfter` seconds, then repeat. */
  get isRateLimited(): boolean {
    return this.status === 429;
  }

  /** True for 400 attachment.not.ready: the same request with the same token can succeed later. */
  get isAttachmentNotReady(): boolean {
    return this.code === 'attachment.not.ready';
  }
}

/**
 * No answer came from the platform (connection refused, DNS, TLS, reset, timeout).
 *
 * @example
 * ```ts
 * import { BotApi, NetworkError } from 'botflow-engine/client';
 *
 * const api = new BotApi({ token: process.env.BOT_TOKEN ?? '', baseUrl: 'https://platform-api2.max.ru' });
 * try {
 *   await api.sendMessage({ chat_id: 42, text: 'Hello' });
 * } catch (error) {
 *   // sent: false — it never reached the platform, safe to repeat; true — it may have.
 *   if (error instanceof NetworkError) console.error(error.code, error.sent ? 'may have been sent' : 'not sent');
 * }
 * ```
 */
export class NetworkError extends BotflowError {
  override name = 'NetworkError';
  /** The operation that failed. */
  readonly operation: string;
  /**
   * `false` when the request certainly never reached the server (connect refused or timed out,
   * DNS, TLS handshake): safe to repeat. `true` when it may have reached it (reset after the
   * request was written, no answer in time): repeating a non-idempotent call may duplicate it.
   */
  readonly sent: boolean;
  /** The low-level error code, e.g. `ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`, `UNABLE_TO_GET_ISSUER_CERT_LOCALLY`. */
  override readonly code: string;
  override readonly cause: unknown;

  constructor(init: { operation: string; sent: boolean; code: string; message: string; cause: unknown }) {
    super('BOTFLOW_NETWORK_ERROR', `${init.operation}: ${init.message}`);
    this.operation = init.operation;
    this.sent = init.sent;
    this.code = init.code;
    this.cause = init.cause;
  }
}

/** One limit or rule a request breaks, with the path of the field at fault. */
export interface LimitViolation {
  /** Field path, e.g. `attachments[0].payload.buttons[2][1].payload`. */
  field: string;
  /** What is wrong and what to do, in plain words. */
  message: string;
}

/**
 * The client refused a call before sending anything: the arguments break a documented rule.
 *
 * @example
 * ```ts
 * import { BotApi, UsageError } from 'botflow-engine/client';
 *
 * const api = new BotApi({ token: process.env.BOT_TOKEN ?? '', baseUrl: 'https://platform-api2.max.ru' });
 * try {
 *   await api.sendMessage({ chat_id: 42, text: 'Hello' });
 * } catch (error) {
 *   // Refused before sending: `field` names the first field at fault.
 *   if (error instanceof UsageError) for (const v of error.violations) console.error(v.field, v.message);
 * }
 * ```
 */
export class UsageError extends BotflowError {
  override name = 'UsageError';
  /** Path of the first field at fault. */
  readonly field: string;
  /** Every rule broken (at least one). */
  readonly violations: readonly LimitViolation[];
  /** The operation refused, when the refusal came from a call. */
  readonly operation?: string;

  constructor(violations: readonly LimitViolation[], operation?: string) {
    const first = violations[0] ?? { field: '', message: 'invalid arguments' };
    const more = violations.length > 1 ? ` (and ${violations.length - 1} more problem(s))` : '';
    super(
      'BOTFLOW_API_USAGE',
      `${operation ? `${operation}: ` : ''}${first.field ? `${first.field}: ` : ''}${first.message}${more}`,
    );
    this.field = first.field;
    this.violations = violations;
    if (operation) this.operation = operation;
  }
}

/**
 * A 2xx answer whose body does not decode; the raw body is kept in `raw`.
 *
 * @example
 * ```ts
 * import { BotApi, ResponseDecodeError } from 'botflow-engine/client';
 *
 * const api = new BotApi({ token: process.env.BOT_TOKEN ?? '', baseUrl: 'https://platform-api2.max.ru' });
 * try {
 *   await api.sendMessage({ chat_id: 42, text: 'Hello' });
 * } catch (error) {
 *   // A 2xx answer of an unexpected shape: `path` is the field, `raw` the body as it came.
 *   if (error instanceof ResponseDecodeError) console.error(error.path, error.raw);
 * }
 * ```
 */
export class ResponseDecodeError extends DecodeError {
  override name = 'ResponseDecodeError';
  /** The operation whose answer did not decode. */
  readonly operation: string;
  /** HTTP status of the answer. */
  readonly status: number;
  /** The body as it came (parsed JSON when it was JSON, else the text). */
  readonly raw: unknown;

  constructor(init: { operation: string; status: number; path: string; issue: string; raw: unknown }) {
    super(`${init.operation} response`, init.path, init.issue, 'BOTFLOW_RESPONSE_DECODE');
    this.operation = init.operation;
    this.status = init.status;
    this.raw = init.raw;
  }
}

// A project's registry (loaded through tsx, with its own copy of these modules) may throw them: they are
// recognised by a brand, whichever copy made them (brand.ts).
brandClass(ApiError, 'ApiError');
brandClass(NetworkError, 'NetworkError');
brandClass(UsageError, 'UsageError');
