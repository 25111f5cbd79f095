// Test doubles for the scheduler's pure tests: a fake clock with fake timers, and a fake API whose
// answers the test scripts. Real HTTP is covered by the sandbox tests.
import { ApiError, NetworkError } from '../../src/client/errors.ts';
import type { TimerFactory } from '../../src/client/scheduler/options.ts';
import type { ApiCaller } from '../../src/client/scheduler/types.ts';

interface FakeTimer {
  at: number;
  callback: () => void;
  cancelled: boolean;
}

/** Lets every pending promise callback run. */
export const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

export class FakeClock {
  time = 0;
  private timers: FakeTimer[] = [];
  /** Most timers alive at once (the scheduler promises one). */
  maxLiveTimers = 0;

  now = () => this.time;

  setTimer: TimerFactory = (callback, delayMs) => {
    const timer = { at: this.time + Math.max(0, delayMs), callback, cancelled: false };
    this.timers.push(timer);
    this.maxLiveTimers = Math.max(this.maxLiveTimers, this.live());
    return () => {
      timer.cancelled = true;
    };
  };

  live(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, firing due timers in order and letting promises settle between them. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await flush();
      this.timers = this.timers.filter((t) => !t.cancelled);
      const next = this.timers.reduce<FakeTimer | undefined>(
        (a, t) => (!a || t.at < a.at ? t : a),
        undefined,
      );
      if (!next || next.at > end) break;
      this.time = Math.max(this.time, next.at);
      next.cancelled = true;
      next.callback();
    }
    this.time = end;
    await flush();
  }

  /** Advances in steps until `done()` holds; fails after `maxMs` of fake time. */
  async runUntil(done: () => boolean, maxMs = 600_000, stepMs = 50): Promise<void> {
    const limit = this.time + maxMs;
    while (!done()) {
      if (this.time >= limit) throw new Error(`condition not reached within ${maxMs} ms of fake time`);
      await this.advance(stepMs);
    }
  }
}

/** One call the fake API received. */
export interface FakeCall {
  at: number;
  op: string;
  args: Record<string, unknown>;
}

/** Answers calls with `respond` (throw to fail); records when each call arrived. */
export class FakeApi implements ApiCaller {
  readonly calls: FakeCall[] = [];
  respond: (call: FakeCall, attempt: number) => unknown = () => ({ success: true });
  private attempts = new Map<unknown, number>();

  constructor(private readonly clock: FakeClock) {}

  // biome-ignore lint/suspicious/noExplicitAny: the fake answers any operation
  call(op: string, args: any): Promise<any> {
    const call = { at: this.clock.time, op, args };
    this.calls.push(call);
    const attempt = (this.attempts.get(args) ?? 0) + 1;
    this.attempts.set(args, attempt);
    return new Promise((resolve) => resolve(this.respond(call, attempt)));
  }
}

/** The client's error for a non-2xx answer. */
export function apiError(status: number, code: string, retryAfter?: number): ApiError {
  return new ApiError({
    operation: 'sendMessage',
    status,
    code,
    platformMessage: code,
    ...(retryAfter === undefined ? {} : { retryAfter }),
    body: '',
  });
}

/** The client's error for a call without an answer. */
export function networkError(sent: boolean): NetworkError {
  return new NetworkError({
    operation: 'sendMessage',
    sent,
    code: sent ? 'ECONNRESET' : 'ECONNREFUSED',
    message: sent ? 'connection reset' : 'connection refused',
    cause: undefined,
  });
}

/** Largest number of calls in any window [t, t + windowMs). */
export function maxInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}
