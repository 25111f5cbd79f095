/**
 * Processing with a writer thread: the main thread plans batch N+1 while the writer thread commits batch
 * N, so planning (flows, XState, signing) and committing (SQLite) run on two cores. Batches are applied in
 * the order they were planned, at most `depth` at a time; a planned batch's sessions count as the
 * conversations' state (processor's planned overlay) until its results come back.
 *
 * When events are held back (a session moved on under another process, or an earlier event of the
 * conversation failed) or a batch cannot be applied at all, planning pauses until every batch in flight
 * is answered, then starts again from the database: nothing is planned twice, nothing is skipped.
 */
import type { Logger } from 'pino';
import { isEnvironmental } from '../commit/apply.ts';
import { type WriterThread, WriterThreadStoppedError } from '../commit/writer-thread.ts';
import { type EventOutcome, type InboxProcessor, writesOf } from './processor.ts';

/** What the pipeline needs from the engine. */
export interface PipelineOptions {
  processor: InboxProcessor;
  writer: WriterThread;
  now: () => number;
  logger?: Logger | undefined;
  /** Batches in flight at most (default 2: one committing, one planned behind it). */
  depth?: number;
  /** Hears the outcomes of every answered batch. */
  report(outcomes: EventOutcome[]): void;
  /** A batch was answered or failed: there may be more to do. */
  wake(delayMs?: number): void;
  /** The writer thread stopped: the engine goes on without it. */
  lost(error: Error): void;
}

/** What `pump()` did. */
export type PumpResult = 'sent' | 'busy' | 'empty';

/** Plans batches and hands them to the writer thread. */
export class WriterPipeline {
  readonly #o: PipelineOptions;
  readonly #depth: number;
  /** Highest inbox id planned: later batches plan only rows above it. */
  #cursor = 0;
  #inFlight = 0;
  /** Planning is paused until the batches in flight are answered, then restarts from the database. */
  #restart = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: PipelineOptions) {
    this.#o = options;
    this.#depth = Math.max(1, options.depth ?? 2);
  }

  /** Batches handed to the writer thread and not answered yet. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Plans one batch and sends it, unless `depth` batches are in flight, planning is paused, or none waits. */
  pump(): PumpResult {
    if (this.#restart || this.#inFlight >= this.#depth) return 'busy';
    const { processor, writer } = this.#o;
    const plans = processor.planNext(this.#cursor);
    if (plans.length === 0) return this.#inFlight > 0 ? 'busy' : 'empty';
    this.#cursor = plans.at(-1)!.row.id;
    this.#inFlight++;
    writer.apply(writesOf(plans), this.#o.now()).then(
      (results) => {
        const outcomes = processor.settle(plans, results);
        if (outcomes.length < plans.length) this.#restart = true; // held events wait below the cursor
        this.#answered();
        this.#o.report(outcomes);
        this.#o.wake();
      },
      (error: Error) => {
        this.#restart = true;
        this.#answered();
        if (error instanceof WriterThreadStoppedError) {
          this.#o.logger?.error(
            { err: error },
            'writer thread stopped; the engine commits on its own connection',
          );
          this.#o.lost(error);
          return;
        }
        // Nothing of the batch was committed; it is planned again after a pause (a lasting cause such as a
        // full disk must not turn into a busy loop).
        this.#o.logger?.error(
          { err: error, events: plans.length, environmental: isEnvironmental(error) },
          'a batch could not be committed; planning it again shortly',
        );
        this.#o.wake(500);
      },
    );
    return 'sent';
  }

  /** Resolves when no batch is in flight. */
  idle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #answered(): void {
    this.#inFlight--;
    if (this.#inFlight > 0) return;
    if (this.#restart) {
      // Everything planned and not committed is forgotten; pending rows are read again from the first.
      this.#o.processor.forgetPlanned();
      this.#cursor = 0;
      this.#restart = false;
    }
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}
