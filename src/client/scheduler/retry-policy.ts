/**
 * What to do after a call failed: pause a scope (429), retry the same call later keeping its place
 * (attachment.not.ready, network errors, 5xx), or give up with a reason. Pure: it reads the error and
 * the job's history and returns a decision; the scheduler carries it out.
 */
import { ApiError, NetworkError } from '../errors.ts';
import type { DeadLetterReason, MediaKind } from './types.ts';

/** Tunable retry budgets. */
export interface RetryOptions {
  /** How long `attachment.not.ready` is retried, per media kind, from its first occurrence (ms). */
  notReadyBudgetMs?: Partial<Record<MediaKind, number>>;
  /** First and largest backoff delay between retries (ms). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /**
   * Most attempts after network errors and after 5xx answers. Default: no count; such calls are retried
   * until their time-to-live runs out (minutes for a reply, 10 s for a typing action), so an outage of
   * the platform loses nothing that is still worth sending.
   */
  networkRetries?: number;
  serverErrorRetries?: number;
  /** Retry-After used when a 429 carries none (s). */
  defaultRetryAfterS?: number;
  /** Longest pause one 429 may impose (ms); longer Retry-After values are cut to it. */
  maxPauseMs?: number;
}

export const DEFAULT_NOT_READY_BUDGET_MS: Record<MediaKind, number> = {
  image: 15_000,
  file: 30_000,
  audio: 60_000,
  video: 180_000,
};

/** What the scheduler does next with a failed job. */
export type RetryDecision =
  | { kind: 'pause'; scope: 'chat' | 'global'; pauseMs: number }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'dead'; reason: DeadLetterReason; detail: string };

/** The facts about a failed attempt the policy needs. */
export interface FailedAttempt {
  error: unknown;
  /** Attempts made so far, this one included. */
  attempts: number;
  /** Whether the call counted against a chat (so a 429 can pause just that chat). */
  chatScoped: boolean;
  /** The operation can be repeated safely, or the job accepts duplicates. */
  mayRepeat: boolean;
  mediaKind: MediaKind | undefined;
  /** ms since the first attachment.not.ready of this job, or -1. */
  notReadyElapsedMs: number;
  /** attachment.not.ready answers so far, this one included. */
  notReadyAttempts: number;
  aborted: boolean;
}

/** Exponential backoff: base, 2×base, 4×base… capped. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

/** Decides the next step for one failed attempt. */
export function decideRetry(attempt: FailedAttempt, options: RetryOptions = {}): RetryDecision {
  const base = options.backoffBaseMs ?? 500;
  const max = options.backoffMaxMs ?? 8_000;
  const message = attempt.error instanceof Error ? attempt.error.message : String(attempt.error);
  if (attempt.aborted) return { kind: 'dead', reason: 'aborted', detail: 'the caller aborted it' };

  const api = attempt.error instanceof ApiError ? attempt.error : undefined;
  if (api?.status === 429) {
    const seconds = api.retryAfter ?? options.defaultRetryAfterS ?? 1;
    const pauseMs = Math.min(Math.max(0, seconds) * 1000, options.maxPauseMs ?? 15 * 60_000);
    return { kind: 'pause', scope: attempt.chatScoped ? 'chat' : 'global', pauseMs };
  }
  if (api?.isAttachmentNotReady) {
    const kind = attempt.mediaKind ?? 'file';
    const budget = options.notReadyBudgetMs?.[kind] ?? DEFAULT_NOT_READY_BUDGET_MS[kind];
    const elapsed = Math.max(0, attempt.notReadyElapsedMs);
    if (elapsed >= budget) {
      return {
        kind: 'dead',
        reason: 'attachment-not-ready',
        detail: `the ${kind} was still processing after ${Math.round(elapsed / 1000)} s (budget ${budget / 1000} s)`,
      };
    }
    return {
      kind: 'retry',
      delayMs: Math.min(backoffMs(attempt.notReadyAttempts, base, max), budget - elapsed),
    };
  }
  if (api && api.status >= 500) {
    if (!attempt.mayRepeat) {
      return {
        kind: 'dead',
        reason: 'ambiguous',
        detail: `server error ${api.status} and the job allows one delivery`,
      };
    }
    if (attempt.attempts > (options.serverErrorRetries ?? Number.POSITIVE_INFINITY)) {
      return {
        kind: 'dead',
        reason: 'server-error',
        detail: `${attempt.attempts} attempts; last: ${message}`,
      };
    }
    return { kind: 'retry', delayMs: backoffMs(attempt.attempts, base, max) };
  }
  if (api) return { kind: 'dead', reason: 'rejected', detail: message };

  const network = attempt.error instanceof NetworkError ? attempt.error : undefined;
  if (network) {
    if (network.sent && !attempt.mayRepeat) {
      return {
        kind: 'dead',
        reason: 'ambiguous',
        detail: `sent without an answer and the job allows at most one delivery: ${message}`,
      };
    }
    if (attempt.attempts > (options.networkRetries ?? Number.POSITIVE_INFINITY)) {
      return { kind: 'dead', reason: 'network', detail: `${attempt.attempts} attempts; last: ${message}` };
    }
    return { kind: 'retry', delayMs: backoffMs(attempt.attempts, base / 2, max) };
  }
  // Anything else is a bug or a decoding failure: retrying would repeat it.
  return { kind: 'dead', reason: 'rejected', detail: message };
}
