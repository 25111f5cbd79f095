/** How many jobs a scheduler holds (queued, delayed or in flight), and who waits for it to reach zero. */

import { BotflowError } from '../../errors/index.ts';
import type { TimerFactory } from './options.ts';

export class PendingJobs {
  #count = 0;
  #waiters: (() => void)[] = [];

  get count(): number {
    return this.#count;
  }

  added(): void {
    this.#count++;
  }

  /** One job settled; wakes the waiters when none is left. */
  settled(): void {
    this.#count--;
    if (this.#count > 0 || this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when no job is left; rejects if that takes longer than `timeoutMs`. */
  drained(setTimer: TimerFactory, timeoutMs?: number): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      let cancel: (() => void) | undefined;
      const done = () => {
        cancel?.();
        resolve();
      };
      this.#waiters.push(done);
      if (timeoutMs === undefined) return;
      cancel = setTimer(
        () => {
          this.#waiters = this.#waiters.filter((w) => w !== done);
          reject(
            new BotflowError(
              'BOTFLOW_SCHEDULER_DRAIN_TIMEOUT',
              `Scheduler.drain: ${this.#count} job(s) still pending after ${timeoutMs} ms: give drain() a longer timeout, or close() the scheduler to drop them`,
            ),
          );
        },
        timeoutMs,
        true,
      );
    });
  }
}
