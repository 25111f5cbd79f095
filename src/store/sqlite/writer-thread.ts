/**
 * A second thread that writes to the database, so that a bot uses both cores of a small machine: while
 * it commits one batch of the engine's steps, the main thread plans the next (XState, effects, signing)
 * and serves HTTP. It also commits intake's inbox appends, so the two busiest writers never wait for each
 * other's locks. It has its own connection to the same file (WAL: the main thread keeps reading).
 *
 *   const writer = await startWriterThread({ path: 'bot.db' });
 *   const engine = createEngine({ db, flows, writer });           // batches applied on the thread
 *   buildWebhook({ db, commit: (entries) => writer.append(entries) });
 *   …
 *   await engine.stop(); await writer.close();
 */
import { Worker } from 'node:worker_threads';
import { BotflowError } from '../../errors/index.ts';
import type { AppendResult, InboxEntry } from '../inbox.ts';
import { systemClock } from '../ports/clock.ts';
import { SQLite } from '../sqlite.ts';
import type { ApplyResult, PlannedWrites } from './apply.ts';

/** How to start a writer thread. */
export interface WriterThreadOptions {
  /** The database file (the one the main thread opened; `:memory:` cannot be shared). */
  path: string;
  /** As in `openDatabase` (default FULL). */
  synchronous?: 'FULL' | 'NORMAL';
  /** As in `openDatabase` (default 5000). */
  busyTimeoutMs?: number;
}

/** A request to the thread. */
export type WriterRequest =
  | { id: number; kind: 'apply'; batch: PlannedWrites[]; now: number }
  | { id: number; kind: 'append'; entries: InboxEntry[]; now: number };

/** The thread's answer to one request. */
export type WriterReply =
  | { id: number; ok: true; value: unknown }
  | {
      id: number;
      ok: false;
      error: { name: string; message: string; code?: string };
    };

/** The thread stopped (closed, or crashed): nothing more can be written through it. */
export class WriterThreadStoppedError extends BotflowError {
  override name = 'WriterThreadStoppedError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_WRITER_THREAD_STOPPED', message, options);
  }
}

interface Waiting {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** The main thread's handle on the writer thread. Requests are carried out one at a time, in order. */
export class WriterThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;
  #stopped: Error | undefined;
  readonly #exited: Promise<void>;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (reply: WriterReply) => this.#answer(reply));
    this.#exited = new Promise((resolve) => {
      worker.once('exit', (code) => {
        this.#stop(new WriterThreadStoppedError(`the writer thread exited (code ${code})`));
        resolve();
      });
    });
    worker.on('error', (error) => {
      this.#stop(
        new WriterThreadStoppedError(`the writer thread failed: ${error.message}`, { cause: error }),
      );
    });
  }

  /** Starts the thread and waits until its connection is open. */
  static async start(options: WriterThreadOptions): Promise<WriterThread> {
    if (options.path === ':memory:' || options.path === '') {
      throw new BotflowError(
        'BOTFLOW_OPTIONS_INVALID',
        'a writer thread needs a database file: an in-memory database cannot be shared; give a file path, or run without one (database.writerThread: false)',
      );
    }
    const entry = new URL(
      `./writer-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
      import.meta.url,
    );
    const worker = new Worker(new URL('./writer-boot.mjs', import.meta.url), {
      workerData: { entry: entry.href, options },
    });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: { ready?: boolean }) => {
        if (!message?.ready) return;
        cleanup();
        resolve();
      };
      const onError = (error: Error) => {
        cleanup();
        reject(
          new BotflowError(
            'BOTFLOW_WRITER_THREAD_FAILED',
            `the writer thread could not start: ${error.message}`,
            { cause: error },
          ),
        );
      };
      const onExit = (code: number) => {
        cleanup();
        reject(
          new BotflowError(
            'BOTFLOW_WRITER_THREAD_FAILED',
            `the writer thread exited while starting (code ${code})`,
          ),
        );
      };
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
    });
    return new WriterThread(worker);
  }

  /** Applies a planned batch (see apply.ts) in one transaction; `now` stamps settled rows. */
  apply(batch: PlannedWrites[], now: number): Promise<ApplyResult[]> {
    return this.#request({ id: 0, kind: 'apply', batch, now }) as Promise<ApplyResult[]>;
  }

  /**
   * Appends inbox entries in one transaction (intake's group commit); says which were new. `now` stamps the
   * entries that bring no `receivedAt` (the caller's clock; default the system clock).
   */
  append(entries: InboxEntry[], now: number = systemClock.now()): Promise<AppendResult[]> {
    return this.#request({ id: 0, kind: 'append', entries, now }) as Promise<AppendResult[]>;
  }

  /** Requests sent and not answered yet. */
  get pending(): number {
    return this.#waiting.size;
  }

  /** False once the thread stopped (closed or crashed). */
  get running(): boolean {
    return this.#stopped === undefined;
  }

  /** Lets the requests already sent finish, then closes the thread's connection and ends it. */
  async close(): Promise<void> {
    if (!this.#stopped) this.#worker.postMessage({ kind: 'close' });
    await this.#exited;
  }

  #request(request: WriterRequest): Promise<unknown> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id });
    });
  }

  #answer(reply: WriterReply): void {
    const waiting = this.#waiting.get(reply.id);
    if (!waiting) return;
    this.#waiting.delete(reply.id);
    if (reply.ok) {
      waiting.resolve(reply.value);
      return;
    }
    const { name, message, code } = reply.error;
    // Plain Error (or SqliteError): the thread's error rebuilt with its own name and code, not a new one.
    // SQLite's errors are rebuilt as such, so callers tell a full disk from a bad write as on their own connection.
    const error =
      code !== undefined && name === 'SqliteError'
        ? new SQLite.SqliteError(message, code)
        : Object.assign(new Error(message), { name, ...(code !== undefined ? { code } : {}) });
    waiting.reject(error);
  }

  #stop(error: Error): void {
    if (this.#stopped) return;
    this.#stopped = error;
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }
}

/** Starts a writer thread on the database file at `options.path`. */
export function startWriterThread(options: WriterThreadOptions): Promise<WriterThread> {
  return WriterThread.start(options);
}
