/**
 * The machinery under the typed client: `call(op, args)` splits one argument object into path,
 * query and body as OPERATIONS says, checks the documented limits, sends through the transport and
 * decodes the answer. `BotApi` (client.ts) adds one typed method per operation on top.
 */
import { inspect } from 'node:util';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { ResponseDecodeError, UsageError } from './errors.ts';
import { checkOperationArgs } from './limits.ts';
import type { OperationArgs, OperationResult, UndecodableUpdate, UpdatesResult } from './operation-types.ts';
import { OPERATIONS, type OperationName, type OperationSpec } from './operations.ts';
import { DecodeError, decode, decodeUpdate } from './schemas/decode.ts';
import type { UploadType } from './schemas/objects.ts';
import type { Update } from './schemas/updates.ts';
import { createAgent, Transport } from './transport.ts';

/** How to reach the platform. */
export interface BotApiOptions {
  /** The bot token. Kept private: never logged, never in errors, never serialized. */
  token: string;
  /** e.g. `http://127.0.0.1:PORT` (sandbox) or `https://platform-api2.max.ru`. */
  baseUrl: string;
  /** Extra PEM CA certificates (contents), ADDED to Node's bundled roots (`tls.rootCertificates`). */
  caCertificates?: Array<string | Buffer>;
  /** Extra PEM CA files, ADDED to Node's bundled roots. Give both the platform's root and sub CA. */
  caFiles?: string[];
  /** Per-request timeout for the answer's headers and body. Default 30 000 ms. */
  timeoutMs?: number;
  /** Keep-alive connections per host. Default 8. */
  connections?: number;
  /** TCP + TLS connect timeout. Default 10 000 ms. A connect timeout is never ambiguous (`sent: false`). */
  connectTimeoutMs?: number;
  /** Structured logger; the client logs one debug line per call and a warning per failure. */
  logger?: Logger;
  /** Use this dispatcher instead of creating an Agent (tests). The client does not close it. */
  dispatcher?: Dispatcher;
}

/** Per-call options. */
export interface CallOptions {
  /** Abort the call (the result is a NetworkError with code ABORTED, `sent: true`). */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
}

/** Extra time given to GET /updates beyond its long-poll `timeout`. */
export const POLL_TIMEOUT_MARGIN_MS = 15_000;
const DEFAULT_POLL_TIMEOUT_S = 30;

/**
 * True when a write answered `{success: false}` (returned, not thrown): check `result.message`.
 *
 * @example
 * ```ts
 * import { BotApi, isFailure } from 'botflow-engine/client';
 *
 * const api = new BotApi({ token: process.env.BOT_TOKEN ?? '', baseUrl: 'https://platform-api2.max.ru' });
 * const pinned = await api.pinMessage({ chat_id: 42, message_id: 'mid.1' });
 * if (isFailure(pinned)) console.warn(`not pinned: ${pinned.message}`);
 * ```
 */
export function isFailure(result: unknown): result is { success: false; message?: string } {
  return result !== null && typeof result === 'object' && (result as { success?: unknown }).success === false;
}

interface BuiltRequest {
  path: string;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

/** Splits one argument object into path, query and body, as the operation table says. */
export function buildRequest(op: string, spec: OperationSpec, args: Record<string, unknown>): BuiltRequest {
  const used = new Set<string>();
  const path = spec.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    used.add(name);
    const value = args[name];
    if (value === undefined || value === null || value === '') {
      throw new UsageError([{ field: name, message: 'is required (it is part of the path)' }], op);
    }
    return encodeURIComponent(String(value));
  });
  const query: Record<string, unknown> = {};
  for (const name of spec.query ?? []) {
    used.add(name);
    if (args[name] !== undefined) query[name] = args[name];
  }
  let body: Record<string, unknown> | undefined;
  const unknown: string[] = [];
  if (spec.body === 'rest') {
    body = {};
    for (const [k, v] of Object.entries(args)) if (!used.has(k) && v !== undefined) body[k] = v;
  } else {
    const bodyKeys = new Set(spec.body ?? []);
    if (spec.body) body = {};
    for (const [k, v] of Object.entries(args)) {
      if (used.has(k) || v === undefined) continue;
      if (body && bodyKeys.has(k)) body[k] = v;
      else unknown.push(k);
    }
  }
  if (unknown.length) {
    const allowed = [...used, ...(Array.isArray(spec.body) ? spec.body : [])];
    throw new UsageError(
      unknown.map((k) => ({
        field: k,
        message: `is not an argument of ${op} (known: ${allowed.join(', ') || 'none'})`,
      })),
      op,
    );
  }
  return { path, query, body };
}

/** The generic part of the client; use `BotApi`. */
export class BotApiCore {
  readonly #transport: Transport;
  readonly #ownsDispatcher: boolean;
  readonly #timeoutMs: number;
  readonly #logger: Logger | undefined;
  readonly #warned = new Set<string>();
  #closed = false;
  #destroyed = false;
  readonly #token: string;
  /** The Agent (with the CA configuration) to reuse for the upload hosts. */
  readonly dispatcher: Dispatcher;

  constructor(options: BotApiOptions) {
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      createAgent({
        ...(options.caCertificates ? { caCertificates: options.caCertificates } : {}),
        ...(options.caFiles ? { caFiles: options.caFiles } : {}),
        ...(options.connections ? { connections: options.connections } : {}),
        ...(options.connectTimeoutMs ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
      });
    this.#logger = options.logger?.child({ component: 'api' });
    this.#transport = new Transport({
      token: options.token,
      baseUrl: options.baseUrl,
      dispatcher: this.dispatcher,
      ...(this.#logger ? { logger: this.#logger } : {}),
    });
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#token = options.token;
  }

  /**
   * Headers for the POST to an upload host (api/upload.ts): the spec requires the raw token in
   * `Authorization` for image uploads only, and no other API header for any kind.
   */
  uploadHeaders(kind: UploadType): Record<string, string> {
    return kind === 'image' ? { authorization: this.#token } : {};
  }

  /** The base URL (no secrets). */
  get baseUrl(): string {
    return this.#transport.baseUrl;
  }

  /** Calls one operation of OPERATIONS with one argument object; resolves with the decoded answer. */
  async call<Op extends OperationName>(
    op: Op,
    args: OperationArgs<Op>,
    options: CallOptions = {},
  ): Promise<OperationResult<Op>> {
    const spec: OperationSpec | undefined = Object.hasOwn(OPERATIONS, op) ? OPERATIONS[op] : undefined;
    if (!spec) throw new UsageError([{ field: 'op', message: `${String(op)} is not a Bot API operation` }]);
    if (this.#closed) {
      throw new UsageError([{ field: '', message: 'the client is closed: create a new BotApi' }], op);
    }
    const record = (args ?? {}) as Record<string, unknown>;
    if (spec.deprecated && !this.#warned.has(op)) {
      this.#warned.add(op);
      this.#logger?.warn({ op }, `${op} is deprecated: ${spec.deprecated}`);
    }
    const violations = checkOperationArgs(op, record);
    if (violations.length) throw new UsageError(violations, op);
    const { path, query, body } = buildRequest(op, spec, record);
    const timeoutMs = options.timeoutMs ?? this.#defaultTimeout(op, record);
    const response = await this.#transport.send({
      operation: op,
      method: spec.method,
      path,
      query,
      ...(body ? { body } : {}),
      timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!response.isJson) {
      throw new ResponseDecodeError({
        operation: op,
        status: response.status,
        path: '',
        issue: 'the answer is not JSON',
        raw: response.json,
      });
    }
    try {
      const decoded = decode(spec.result, response.json, `${op} response`);
      return (
        op === 'getUpdates'
          ? this.#decodeUpdates(decoded as { updates: unknown[]; marker?: number })
          : decoded
      ) as OperationResult<Op>;
    } catch (err) {
      if (err instanceof DecodeError) {
        throw new ResponseDecodeError({
          operation: op,
          status: response.status,
          path: err.path,
          issue: err.issue,
          raw: response.json,
        });
      }
      throw err;
    }
  }

  #defaultTimeout(op: OperationName, args: Record<string, unknown>): number {
    if (op !== 'getUpdates') return this.#timeoutMs;
    const poll = typeof args.timeout === 'number' ? args.timeout : DEFAULT_POLL_TIMEOUT_S;
    return Math.max(this.#timeoutMs, poll * 1000 + POLL_TIMEOUT_MARGIN_MS);
  }

  #decodeUpdates(list: { updates: unknown[]; marker?: number }): UpdatesResult {
    const updates: Update[] = [];
    const undecodable: UndecodableUpdate[] = [];
    for (const raw of list.updates) {
      try {
        updates.push(decodeUpdate(raw));
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
        undecodable.push({ raw, error: err });
        this.#logger?.warn({ op: 'getUpdates', field: err.path, issue: err.issue }, 'update did not decode');
      }
    }
    return { updates, ...(list.marker !== undefined ? { marker: list.marker } : {}), undecodable };
  }

  /**
   * Closes the Agent the client created (not a dispatcher passed in), after the calls in flight
   * finish: abort a long poll first (its `signal`) or use `destroy()` to stop at once.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsDispatcher) await this.dispatcher.close();
  }

  /** Stops at once: calls in flight fail with NetworkError (`sent: true`: they may have arrived). */
  async destroy(): Promise<void> {
    this.#closed = true;
    if (this.#ownsDispatcher && !this.#destroyed) {
      this.#destroyed = true;
      await this.dispatcher.destroy();
    }
  }

  /** Serializes without the token. */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl, token: '<redacted>' };
  }

  [inspect.custom](): string {
    return `${this.constructor.name} { baseUrl: '${this.baseUrl}', token: <redacted> }`;
  }
}
