/**
 * Uploads one image, video, audio or file and returns the attachment to put in a message:
 * POST /uploads?type=… for a one-file URL, then a streamed multipart POST (field `data`) to that URL.
 * The upload host gets the bot token in `Authorization` for images only and no other API header;
 * the attachment token comes from where the spec's table says (host answer for image and file,
 * POST /uploads for video and audio). Nothing is buffered whole: paths and streams flow through.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { type Dispatcher, request } from 'undici';
import type { BotApi } from './client.ts';
import { ApiError, NetworkError, ResponseDecodeError, UsageError } from './errors.ts';
import type { OperationArgs, OperationResult } from './operation-types.ts';
import { DeadLetterError } from './scheduler/types.ts';
import type { UploadType } from './schemas/index.ts';
import { toNetworkError } from './transport.ts';

/** Largest file the platform takes per kind (bytes). */
export const UPLOAD_SIZE_LIMITS: Record<UploadType, number> = {
  image: 50 * 1024 ** 2,
  video: 250 * 1024 ** 2,
  audio: 256 * 1024 ** 2,
  file: 4 * 1024 ** 3,
};

/** The client parts an upload needs: calls, the Agent with the CA configuration, and the image upload header. */
export type UploadClient = Pick<BotApi, 'call' | 'dispatcher' | 'uploadHeaders'>;

/** The attachment an upload yields; it fits `attachments` of sendMessage, editMessage and callback answers. */
export type UploadedAttachment =
  | { type: 'image'; payload: { photos: Record<string, { token: string }> } }
  | { type: 'video' | 'audio' | 'file'; payload: { token: string } };

/** Bytes sent so far, and the total when known. */
export interface UploadProgress {
  sent: number;
  total: number | undefined;
}

/** What an upload needs of a rate-limit scheduler (the dispatch `Scheduler` is one). */
export interface UploadScheduler {
  submit(job: {
    op: 'getUploadUrl';
    args: OperationArgs<'getUploadUrl'>;
    signal?: AbortSignal;
  }): Promise<OperationResult<'getUploadUrl'>>;
  run<T>(task: {
    run: (signal: AbortSignal | undefined) => Promise<T>;
    label?: string;
    signal?: AbortSignal;
  }): Promise<T>;
}

/** A file to upload: its kind and a path or URL. */
export interface MediaSource {
  type: 'image' | 'video' | 'audio' | 'file';
  source: string;
}

/** What `uploadMedia` takes besides the file: its name and type, progress, a signal, the scheduler to count against. */
export interface UploadOptions {
  /** Name the upload host sees (default: the path's base name, or `upload`). */
  filename?: string;
  /** MIME type of the part (default application/octet-stream). */
  contentType?: string;
  /** Size in bytes of a stream source, when known (enables the size check, progress totals and timeout scaling). */
  size?: number;
  /** Called as bytes go out. */
  onProgress?: (progress: UploadProgress) => void;
  /** Cancels both steps. */
  signal?: AbortSignal;
  /** Route POST /uploads (and the host POST) through this scheduler so they count against the global window. */
  scheduler?: UploadScheduler;
  /** Overall deadline of the host POST; default 60 s plus 1 s per 256 KiB. */
  timeoutMs?: number;
  /**
   * Uploads made in all when one's answer is lost (no answer, a reset, a 5xx: the host may have taken the
   * file), each with a new upload URL since one URL takes one file. Default 8 for a path or a Buffer; a
   * stream cannot be read twice and is uploaded once. An upload makes no message, so doing it again
   * shows nothing twice: at worst the platform keeps a file nobody sends.
   * Between attempts: 0.25 s, doubling up to 8 s; `onProgress` starts again from 0 with each.
   */
  attempts?: number;
}

const MIN_THROUGHPUT_BYTES_PER_S = 256 * 1024;

/**
 * Uploads one file and resolves with the attachment request for a message (or a callback answer's message).
 *
 * @example
 * ```ts
 * import { BotApi, Scheduler, uploadMedia } from 'botflow-engine/client';
 *
 * const api = new BotApi({ token: process.env.BOT_TOKEN ?? '', baseUrl: 'https://platform-api2.max.ru' });
 * const scheduler = new Scheduler({ api });
 * const photo = await uploadMedia(api, 'image', './photo.jpg', {
 *   scheduler, // the upload counts against the platform's 30 calls/s
 *   onProgress: ({ sent, total }) => console.log(`${sent}/${total}`),
 * });
 * await scheduler.submit({ op: 'sendMessage', args: { chat_id: 42, attachments: [photo] } });
 * ```
 */
export async function uploadMedia(
  api: UploadClient,
  kind: UploadType,
  source: string | Buffer | Readable,
  options: UploadOptions = {},
): Promise<UploadedAttachment> {
  if (!(kind in UPLOAD_SIZE_LIMITS)) {
    throw new UsageError([
      { field: 'kind', message: `must be one of image, video, audio, file; got ${String(kind)}` },
    ]);
  }
  const replayable = typeof source === 'string' || Buffer.isBuffer(source);
  const attempts = replayable ? Math.max(1, options.attempts ?? DEFAULT_UPLOAD_ATTEMPTS) : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await uploadOnce(api, kind, source, options);
    } catch (error) {
      if (attempt >= attempts || !answerLost(error) || options.signal?.aborted) throw error;
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(RETRY_MAX_DELAY_MS, RETRY_DELAY_MS * 2 ** (attempt - 1))),
    );
  }
}

/** Uploads made in all when answers are lost (see `UploadOptions.attempts`). */
export const DEFAULT_UPLOAD_ATTEMPTS = 8;
const RETRY_DELAY_MS = 250;
const RETRY_MAX_DELAY_MS = 8_000;

/**
 * Whether a failed step may have been done without its answer arriving: no answer (sent), or a 5xx; also
 * when the scheduler gave the step up for that reason (the host POST runs as a task, which it does not retry).
 */
function answerLost(error: unknown): boolean {
  const cause = error instanceof DeadLetterError && error.reason !== 'aborted' ? error.lastError : error;
  if (cause instanceof NetworkError) return cause.code !== 'ABORTED';
  return cause instanceof ApiError && cause.status >= 500;
}

async function uploadOnce(
  api: UploadClient,
  kind: UploadType,
  source: string | Buffer | Readable,
  options: UploadOptions,
): Promise<UploadedAttachment> {
  const body = await openSource(source, options);
  if (body.size !== undefined && body.size > UPLOAD_SIZE_LIMITS[kind]) {
    body.stream.destroy();
    throw new UsageError([
      {
        field: 'source',
        message: `is ${body.size} bytes; ${kind === 'image' || kind === 'audio' ? 'an' : 'a'} ${kind} may be at most ${UPLOAD_SIZE_LIMITS[kind]} bytes`,
      },
    ]);
  }
  try {
    const slotArgs = { type: kind };
    const signalOption = options.signal ? { signal: options.signal } : {};
    const slot = options.scheduler
      ? await options.scheduler.submit({ op: 'getUploadUrl', args: slotArgs, ...signalOption })
      : await api.call('getUploadUrl', slotArgs, signalOption);
    const send = () => postToHost(api, kind, slot.url, body, options);
    const answer = options.scheduler
      ? await options.scheduler.run({ run: send, label: `upload ${kind}`, ...signalOption })
      : await send();
    return attachmentFor(kind, slot.token, answer);
  } finally {
    body.stream.destroy();
  }
}

interface OpenedSource {
  stream: Readable;
  size: number | undefined;
  filename: string;
}

async function openSource(source: string | Buffer | Readable, options: UploadOptions): Promise<OpenedSource> {
  if (typeof source === 'string') {
    let size: number;
    try {
      const info = await stat(source);
      if (!info.isFile()) throw new Error('not a regular file'); // plain: wrapped in a UsageError below
      size = info.size;
    } catch (error) {
      throw new UsageError([
        {
          field: 'source',
          message: `cannot read ${source}: ${(error as Error).message}; give a file path, a Buffer or a stream`,
        },
      ]);
    }
    return { stream: createReadStream(source), size, filename: options.filename ?? basename(source) };
  }
  if (Buffer.isBuffer(source)) {
    return { stream: Readable.from([source]), size: source.length, filename: options.filename ?? 'upload' };
  }
  if (source instanceof Readable)
    return { stream: source, size: options.size, filename: options.filename ?? 'upload' };
  throw new UsageError([{ field: 'source', message: 'must be a file path, a Buffer or a Readable stream' }]);
}

/** Streams the multipart body to the upload host; resolves with the host's answer text. */
async function postToHost(
  api: UploadClient,
  kind: UploadType,
  url: string,
  source: OpenedSource,
  options: UploadOptions,
): Promise<string> {
  const boundary = `----botflow${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="${escapeQuoted(source.filename)}"\r\n` +
      `Content-Type: ${options.contentType ?? 'application/octet-stream'}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  if (source.size !== undefined) headers['content-length'] = String(head.length + source.size + tail.length);
  Object.assign(headers, api.uploadHeaders(kind));

  const timeoutMs =
    options.timeoutMs ?? 60_000 + Math.ceil(((source.size ?? 0) / MIN_THROUGHPUT_BYTES_PER_S) * 1000);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let sent = 0;
  const report = (n: number) => {
    sent += n;
    options.onProgress?.({ sent, total: source.size });
  };
  async function* multipart() {
    yield head;
    for await (const chunk of source.stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      report(bytes.length);
      yield bytes;
    }
    yield tail;
  }
  const host = new URL(url).host;
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      method: 'POST',
      headers,
      body: Readable.from(multipart()),
      dispatcher: api.dispatcher,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  } catch (error) {
    throw toNetworkError(error, `upload ${kind}`, { host, timeoutMs, aborted: signal.aborted });
  }
  const text = await response.body.text();
  if (response.statusCode < 200 || response.statusCode >= 300) {
    let code = `http.${response.statusCode}`;
    let platformMessage = '';
    try {
      const parsed = JSON.parse(text) as { code?: string; message?: string };
      code = parsed.code ?? code;
      platformMessage = parsed.message ?? '';
    } catch {}
    throw new ApiError({
      operation: `upload ${kind}`,
      status: response.statusCode,
      code,
      platformMessage,
      body: text.slice(0, 2000),
    });
  }
  return text;
}

/** The attachment request for the message, taking the token from where the spec says for each kind. */
function attachmentFor(kind: UploadType, slotToken: string | undefined, answer: string): UploadedAttachment {
  if (kind === 'video' || kind === 'audio') {
    if (!slotToken) throw hostAnswerError(kind, 'POST /uploads gave no token for this kind');
    return { type: kind, payload: { token: slotToken } };
  }
  let parsed: { token?: unknown; photos?: Record<string, { token?: unknown }> };
  try {
    parsed = JSON.parse(answer);
  } catch {
    throw hostAnswerError(
      kind,
      `the upload host answered with something other than JSON: ${answer.slice(0, 100)}`,
    );
  }
  if (kind === 'image') {
    const photos = parsed.photos;
    const valid = photos && Object.values(photos).every((p) => typeof p?.token === 'string');
    if (!photos || !valid || Object.keys(photos).length === 0) {
      throw hostAnswerError(kind, 'the upload host answer has no photos.*.token');
    }
    return { type: 'image', payload: { photos: photos as Record<string, { token: string }> } };
  }
  if (typeof parsed.token !== 'string') throw hostAnswerError(kind, 'the upload host answer has no token');
  return { type: 'file', payload: { token: parsed.token } };
}

function hostAnswerError(kind: UploadType, issue: string, raw: unknown = undefined): ResponseDecodeError {
  return new ResponseDecodeError({ operation: `upload ${kind}`, status: 200, path: '', issue, raw });
}

function escapeQuoted(name: string): string {
  return name.replace(/["\\\r\n]/g, '_');
}
