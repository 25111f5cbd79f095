/**
 * The raw HTTP layer of the Bot API client, on undici: one keep-alive Agent (with the extra CA
 * certificates) per client, the raw-token Authorization header, JSON bodies, comma-separated query
 * arrays, and the translation of every failure into ApiError or NetworkError. Response bodies are
 * always consumed so that sockets go back to the pool.
 */
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import type { Logger } from 'pino';
import { Agent, type Dispatcher } from 'undici';
import { wallNow } from '../store/ports/wall-time.ts';
import { ApiError, NetworkError, UsageError } from './errors.ts';
import type { HttpMethod } from './operations.ts';

/** How the shared Agent is built. */
export interface AgentOptions {
  /** Extra PEM CA certificates (contents), added to Node's bundled roots. */
  caCertificates?: Array<string | Buffer>;
  /** Extra PEM CA files, added to Node's bundled roots. */
  caFiles?: string[];
  /** Keep-alive connections per origin. Default 8. */
  connections?: number;
  /** TCP + TLS connect timeout. Default 10 000 ms. */
  connectTimeoutMs?: number;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

/** Reads and checks the extra CAs; bad input gets a UsageError naming the option. */
export function loadExtraCas(options: Pick<AgentOptions, 'caCertificates' | 'caFiles'>): string[] {
  const out: string[] = [];
  (options.caCertificates ?? []).forEach((ca, i) => {
    const pem = typeof ca === 'string' ? ca : ca.toString('utf8');
    if (!PEM_CERT.test(pem)) {
      throw new UsageError([
        {
          field: `caCertificates[${i}]`,
          message: 'is not a PEM certificate (-----BEGIN CERTIFICATE----- …)',
        },
      ]);
    }
    out.push(pem);
  });
  (options.caFiles ?? []).forEach((file, i) => {
    let pem: string;
    try {
      pem = readFileSync(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new UsageError([{ field: `caFiles[${i}]`, message: `cannot read ${file} (${code})` }]);
    }
    if (!PEM_CERT.test(pem)) {
      throw new UsageError([
        {
          field: `caFiles[${i}]`,
          message: `${file} holds no PEM certificate: convert DER with openssl x509 -inform der`,
        },
      ]);
    }
    out.push(pem);
  });
  return out;
}

/**
 * The Agent's connect options: the connect timeout, and when extra CAs are given, a trust list of
 * Node's bundled roots PLUS the extras (Node's `ca` option alone would replace the bundled roots).
 */
export function connectOptions(options: AgentOptions = {}): { timeout: number; ca?: string[] } {
  const extra = loadExtraCas(options);
  const connect: { timeout: number; ca?: string[] } = { timeout: options.connectTimeoutMs ?? 10_000 };
  if (extra.length > 0) connect.ca = [...tls.rootCertificates, ...extra];
  return connect;
}

/**
 * A keep-alive Agent whose TLS trust is Node's bundled roots plus the extra CAs. Use the same Agent
 * for the API host and the upload hosts: both are served under the platform's CA chain.
 */
export function createAgent(options: AgentOptions = {}): Agent {
  return new Agent({
    connections: options.connections ?? 8,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connect: connectOptions(options),
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
}

/** Seconds to wait from a Retry-After value: delta-seconds or an HTTP date. Undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = wallNow()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text));
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** Encodes query arguments; arrays are comma-separated, absent values and empty arrays are left out. */
export function encodeQuery(query: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    const encoded = Array.isArray(value)
      ? value.map((v) => encodeURIComponent(String(v))).join(',')
      : encodeURIComponent(String(value));
    parts.push(`${encodeURIComponent(key)}=${encoded}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

const NOT_SENT = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CLOSED',
  'UND_ERR_INVALID_ARG',
]);
const UNTRUSTED = new Set([
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
]);
const TLS_OTHER = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_REVOKED',
]);

function errorCode(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    const rec = e as { code?: unknown; cause?: unknown; errors?: unknown[] };
    if (typeof rec.code === 'string') return rec.code;
    e = rec.cause ?? rec.errors?.[0];
  }
  return 'UNKNOWN';
}

function isTlsCode(code: string): boolean {
  return (
    UNTRUSTED.has(code) || TLS_OTHER.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')
  );
}

function plainWords(code: string, host: string, timeoutMs: number): string {
  if (UNTRUSTED.has(code)) {
    return `the server's certificate is not trusted (${code}): add the platform's root and sub CA with caFiles`;
  }
  switch (code) {
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return `the server's certificate is out of its validity period (${code}): check this machine's clock`;
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `the server's certificate is not issued for ${host} (${code}): check baseUrl`;
    case 'ECONNREFUSED':
      return `connection to ${host} refused (${code}): is baseUrl right and the server up?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host ${host} not found (${code}): check baseUrl and DNS`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `could not connect to ${host} in time (${code})`;
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `no answer from ${host} within ${timeoutMs} ms (${code}); the request may have been processed`;
    case 'UND_ERR_BODY_TIMEOUT':
      return `the answer from ${host} stalled for ${timeoutMs} ms (${code}); the request may have been processed`;
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
      return `the connection to ${host} was closed before an answer (${code}); the request may have been processed`;
    case 'ABORTED':
      return 'the call was aborted by the caller; the request may have been processed';
    default:
      return isTlsCode(code)
        ? `TLS handshake with ${host} failed (${code})`
        : `no answer from ${host} (${code}); the request may have been processed`;
  }
}

/** Replaces every occurrence of the token in `text`. */
export function redactToken(text: string, token: string): string {
  return token ? text.split(token).join('<redacted>') : text;
}

/**
 * Turns a failure without an answer into a NetworkError. `sent` is false only when the request
 * certainly never reached the server: connect refused or timed out, DNS, TLS handshake.
 */
export function toNetworkError(
  err: unknown,
  operation: string,
  context: { host: string; timeoutMs: number; aborted?: boolean; token?: string },
): NetworkError {
  const code = context.aborted ? 'ABORTED' : errorCode(err);
  const sent = !(NOT_SENT.has(code) || isTlsCode(code));
  const message = redactToken(plainWords(code, context.host, context.timeoutMs), context.token ?? '');
  return new NetworkError({ operation, sent, code, message, cause: err });
}

/** One HTTP exchange, already shaped by the client. */
export interface TransportRequest {
  operation: string;
  method: HttpMethod;
  /** Path below the base URL, placeholders filled, e.g. `/chats/-1/pin`. */
  path: string;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** A 2xx answer: status and the parsed JSON (or the text when it was not JSON). */
export interface TransportResponse {
  status: number;
  json: unknown;
  /** False when the body was not JSON; `json` then holds the text. */
  isJson: boolean;
}

/** Sends requests to one Bot API base URL with one token. */
export class Transport {
  readonly #token: string;
  readonly #origin: string;
  readonly #prefix: string;
  readonly #host: string;
  readonly #dispatcher: Dispatcher;
  readonly #logger: Logger | undefined;

  constructor(options: { token: string; baseUrl: string; dispatcher: Dispatcher; logger?: Logger }) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new UsageError([
        { field: 'baseUrl', message: 'is not a URL (e.g. https://platform-api2.max.ru)' },
      ]);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError([{ field: 'baseUrl', message: 'must be an http: or https: URL' }]);
    }
    if (!options.token) throw new UsageError([{ field: 'token', message: 'is empty: pass the bot token' }]);
    if (!/^[\x21-\x7e]+$/.test(options.token)) {
      throw new UsageError([
        {
          field: 'token',
          message:
            'contains spaces, line breaks or non-ASCII characters: copy the token again (a trailing newline from a file is the usual cause)',
        },
      ]);
    }
    this.#token = options.token;
    this.#origin = url.origin;
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.#host = url.host;
    this.#dispatcher = options.dispatcher;
    this.#logger = options.logger;
  }

  /** The base URL without the token (for logs). */
  get baseUrl(): string {
    return this.#origin + this.#prefix;
  }

  /** Sends one request; resolves with the 2xx answer, throws ApiError or NetworkError otherwise. */
  async send(req: TransportRequest): Promise<TransportResponse> {
    const path = this.#prefix + req.path + encodeQuery(req.query ?? {});
    const headers: Record<string, string> = {
      authorization: this.#token,
      accept: 'application/json',
      'user-agent': 'botflow',
    };
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    const started = performance.now();
    const context = { host: this.#host, timeoutMs: req.timeoutMs, token: this.#token };
    let res: Dispatcher.ResponseData;
    try {
      res = await this.#dispatcher.request({
        origin: this.#origin,
        path,
        method: req.method,
        headers,
        body: payload,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
        signal: req.signal,
      });
    } catch (err) {
      throw this.#fail(toNetworkError(err, req.operation, { ...context, aborted: req.signal?.aborted }), req);
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      throw this.#fail(toNetworkError(err, req.operation, { ...context, aborted: req.signal?.aborted }), req);
    }
    const ms = Math.round(performance.now() - started);
    let json: unknown = text;
    let isJson = false;
    try {
      json = JSON.parse(text);
      isJson = true;
    } catch {
      // Not JSON: kept as text (error pages of proxies, empty bodies).
    }
    if (res.statusCode >= 200 && res.statusCode < 300) {
      this.#logger?.debug({ op: req.operation, status: res.statusCode, ms }, 'api call');
      return { status: res.statusCode, json, isJson };
    }
    const fields = isJson && json && typeof json === 'object' ? (json as Record<string, unknown>) : {};
    const retryAfter = parseRetryAfter(res.headers['retry-after']);
    const error = new ApiError({
      operation: req.operation,
      status: res.statusCode,
      code: typeof fields.code === 'string' && fields.code ? fields.code : `http.${res.statusCode}`,
      platformMessage: redactToken(
        typeof fields.message === 'string' ? fields.message : isJson ? '' : text.slice(0, 200).trim(),
        this.#token,
      ),
      ...(retryAfter !== undefined ? { retryAfter } : {}),
      body: redactToken(text.slice(0, 2000), this.#token),
    });
    this.#logger?.warn(
      { op: req.operation, status: error.status, code: error.code, retryAfter: error.retryAfter, ms },
      'api error',
    );
    throw error;
  }

  #fail(error: NetworkError, req: TransportRequest): NetworkError {
    // A call the caller aborted (a long poll at shutdown) is not a network problem.
    const level = error.code === 'ABORTED' ? 'debug' : 'warn';
    this.#logger?.[level]({ op: req.operation, code: error.code, sent: error.sent }, 'api network error');
    return error;
  }
}
