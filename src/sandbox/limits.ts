/**
 * The platform's request limits, per token, as strict sliding windows of one second: 30 requests
 * overall, and 2 per chat for POST/PUT/DELETE /messages and POST /answers. Only accepted requests
 * count. A refused request gets 429 with `Retry-After` in whole seconds (at least 1).
 */

/** Limit settings: `scale` multiplies both rates (e.g. 10 for fast tests), the window stays one second. */
export interface LimitOptions {
  global: number;
  perChat: number;
  scale?: number;
  /** Monotonic milliseconds the windows are measured with; default `performance.now` (tests may drive it). */
  clock?: () => number;
}

export const PLATFORM_LIMITS: LimitOptions = { global: 30, perChat: 2 };

const WINDOW_MS = 1000;

/** Sliding-window logs of accepted requests. */
export class RateLimiter {
  private globalLog: number[] = [];
  private chatLogs = new Map<number, number[]>();
  private readonly global: number;
  private readonly perChat: number;

  private readonly clock: (() => number) | undefined;

  constructor(options: LimitOptions) {
    this.clock = options.clock;
    const scale = options.scale ?? 1;
    this.global = Math.max(1, Math.floor(options.global * scale));
    this.perChat = Math.max(1, Math.floor(options.perChat * scale));
  }

  /**
   * Admits one request (counting it) or returns the seconds to wait. `chat` is set for chat-scoped
   * operations. `at` is the arrival time (wall-clock ms, fractional) used unless a clock was given.
   */
  admit(
    chat: number | undefined,
    at: number = wallTime(),
  ): { ok: true } | { ok: false; retryAfterSeconds: number; scope: string } {
    const now = this.clock ? this.clock() : at;
    prune(this.globalLog, now);
    if (this.globalLog.length >= this.global) {
      return { ok: false, retryAfterSeconds: waitSeconds(this.globalLog, now), scope: 'global' };
    }
    let chatLog: number[] | undefined;
    if (chat !== undefined) {
      chatLog = this.chatLogs.get(chat);
      if (chatLog) prune(chatLog, now);
      if (chatLog && chatLog.length >= this.perChat) {
        return { ok: false, retryAfterSeconds: waitSeconds(chatLog, now), scope: `chat ${chat}` };
      }
      if (!chatLog) {
        chatLog = [];
        this.chatLogs.set(chat, chatLog);
      }
      chatLog.push(now);
    }
    this.globalLog.push(now);
    if (this.chatLogs.size > 10_000) this.evictIdle(now);
    return { ok: true };
  }

  private evictIdle(now: number): void {
    for (const [chat, log] of this.chatLogs) {
      prune(log, now);
      if (log.length === 0) this.chatLogs.delete(chat);
    }
  }
}

/** Wall-clock milliseconds with sub-millisecond precision (monotonic within the process). */
export function wallTime(): number {
  return performance.timeOrigin + performance.now();
}

function prune(log: number[], now: number): void {
  let i = 0;
  while (i < log.length && log[i]! <= now - WINDOW_MS) i++;
  if (i > 0) log.splice(0, i);
}

function waitSeconds(log: number[], now: number): number {
  const freeAt = log[0]! + WINDOW_MS;
  return Math.max(1, Math.ceil((freeAt - now) / 1000));
}
