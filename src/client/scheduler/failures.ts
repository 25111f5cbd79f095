/**
 * What the scheduler does after a call failed: asks the retry policy (retry-policy.ts), then carries the
 * decision out: a 429 pauses one chat or everything (escalating when several chats are hit at once), a
 * transient failure retries the call in its place and may open the circuit breaker, and a call whose
 * time-to-live ends first becomes a dead letter.
 */
import { ApiError, NetworkError } from '../errors.ts';
import type { CircuitBreaker } from './breaker.ts';
import type { Entry, Lane } from './chat-queues.ts';
import type { LaneBoard } from './lane-board.ts';
import type { MetricsRecorder } from './metrics.ts';
import type { LoggerLike, resolveOptions } from './options.ts';
import { decideRetry } from './retry-policy.ts';
import { BudgetExhausted } from './shared-budget.ts';
import { DeadLetterError, type DeadLetterReason } from './types.ts';

/** The parts of the scheduler that failure handling acts on. */
export interface FailureHost {
  readonly options: ReturnType<typeof resolveOptions>;
  readonly logger: LoggerLike | undefined;
  readonly recorder: MetricsRecorder;
  readonly board: LaneBoard;
  readonly breaker: CircuitBreaker;
  /** Puts the entry back at the head of its lane (keeping its place). */
  requeueAtHead(entry: Entry): void;
  /** Takes a queued entry out of its lane; false when it was not queued. */
  unqueue(entry: Entry): boolean;
  /** Holds an unscoped entry until `until`, then it is queued again. */
  delay(entry: Entry, until: number): void;
  /** Marks the entry done (no longer pending). */
  settle(entry: Entry): void;
  /** Nothing starts before `until` (a global 429, or the breaker open). */
  pauseAll(until: number): void;
}

/** Failure handling of one scheduler. */
export class FailureHandler {
  readonly #host: FailureHost;
  readonly #chatWindowMs: number;
  readonly #recentChat429: { at: number; chatId: number }[] = [];
  /** Chat actions dropped since the last line that said so, and when that line was written. */
  #droppedActions = 0;
  #droppedLoggedAt = Number.NEGATIVE_INFINITY;

  constructor(host: FailureHost, chatWindowMs: number) {
    this.#host = host;
    this.#chatWindowMs = chatWindowMs;
  }

  /** Gives the entry up: its promise rejects with a `DeadLetterError` that says why. */
  deadLetter(entry: Entry, reason: DeadLetterReason, detail: string): void {
    const host = this.#host;
    const error = new DeadLetterError(
      reason,
      entry.op,
      entry.chatId,
      entry.lastError,
      detail,
      entry.attempts > 0,
    );
    host.recorder.recordDeadLetter({
      at: host.options.clock.now(),
      operation: entry.op,
      chatId: entry.chatId,
      reason,
      message: error.message,
    });
    const droppedAction = entry.op === 'sendAction' && (reason === 'expired' || reason === 'rate-limited');
    if (droppedAction) this.#actionDropped(entry, reason, detail);
    // Closing and aborting are no failures: the owner asked for them (what was queued goes back to it).
    else if (reason !== 'closed' && reason !== 'aborted')
      host.logger?.warn({ op: entry.op, chatId: entry.chatId, reason }, 'job dead-lettered');
    host.settle(entry);
    entry.reject(error);
  }

  /**
   * A chat action ("typing…") that could not go out while it was worth showing: counted in
   * `metrics().chatActions.expired`, and said in one log line at most every 10 s (with how many since).
   */
  #actionDropped(entry: Entry, reason: DeadLetterReason, detail: string): void {
    this.#host.recorder.chatActions.expired++;
    this.#droppedActions++;
    const now = this.#host.options.now();
    if (now - this.#droppedLoggedAt < 10_000) return;
    this.#host.logger?.warn(
      {
        op: entry.op,
        chatId: entry.chatId,
        reason,
        dropped: this.#droppedActions,
        total: this.#host.recorder.chatActions.expired,
      },
      `${this.#droppedActions} chat action(s) ("typing…") dropped: not sent while still worth showing (${detail})`,
    );
    this.#droppedActions = 0;
    this.#droppedLoggedAt = now;
  }

  /** Handles the failed attempt of `entry` (its lane already released). */
  failed(entry: Entry, lane: Lane, error: unknown, now: number): void {
    const host = this.#host;
    const notReady = error instanceof ApiError && error.isAttachmentNotReady;
    if (notReady) {
      entry.notReadyAttempts++;
      if (entry.notReadySince < 0) entry.notReadySince = now;
    }
    if (error instanceof BudgetExhausted) {
      this.deadLetter(
        entry,
        'expired',
        `no start in the bot's shared rate budget in time (${error.message})`,
      );
      return;
    }
    const decision = entry.task
      ? ({
          kind: 'dead',
          reason: entry.signal?.aborted ? 'aborted' : 'rejected',
          detail: String((error as Error)?.message ?? error),
        } as const)
      : decideRetry(
          {
            error,
            attempts: entry.attempts,
            // A 429 on a call its chat does not count (a read-back, "typing…") is the global limit.
            chatScoped: lane.chatId !== undefined && entry.countsPerChat,
            mayRepeat: entry.retryAmbiguous,
            mediaKind: entry.mediaKind,
            notReadyElapsedMs: notReady ? now - entry.notReadySince : -1,
            notReadyAttempts: entry.notReadyAttempts,
            aborted: entry.signal?.aborted ?? false,
          },
          host.options.retry,
        );
    if (decision.kind === 'dead') {
      this.deadLetter(entry, decision.reason, decision.detail);
    } else if (decision.kind === 'pause') {
      this.#pause(entry, lane, decision.scope, decision.pauseMs, now);
    } else {
      const until = now + decision.delayMs;
      host.recorder.retries[
        notReady ? 'notReady' : error instanceof NetworkError ? 'network' : 'serverError'
      ]++;
      if (!notReady) this.#holdWhilePlatformFails(now, error);
      if (entry.deadline < until) {
        this.deadLetter(
          entry,
          'expired',
          `its time-to-live ends before the next retry (last error: ${messageOf(error)})`,
        );
      } else if (lane.chatId !== undefined) {
        lane.pausedUntil = Math.max(lane.pausedUntil, until); // holds this chat only, keeping the job's place
        host.requeueAtHead(entry);
      } else {
        host.delay(entry, until);
      }
    }
  }

  /** A 429: pauses the chat or everything, and gives up the jobs the pause outlasts. */
  #pause(entry: Entry, lane: Lane, asked: 'chat' | 'global', pauseMs: number, now: number): void {
    const host = this.#host;
    const scope = this.#scopeOf(asked, entry, lane, now);
    const until = now + pauseMs;
    host.recorder.http429[scope]++;
    host.logger?.warn({ op: entry.op, chatId: lane.chatId, scope, pauseMs }, 'rate limited: pausing scope');
    if (scope === 'chat') lane.pausedUntil = Math.max(lane.pausedUntil, until);
    else host.pauseAll(until);
    if (entry.deadline < until) {
      this.deadLetter(entry, 'rate-limited', `Retry-After ${pauseMs} ms outlasts its time-to-live`);
    } else {
      host.requeueAtHead(entry);
    }
    for (const paused of scope === 'chat' ? [lane] : host.board.allLanes()) this.#expireQueued(paused, until);
  }

  /** Transient failures in a row open the breaker: everything waits for the probe (breaker.ts). */
  #holdWhilePlatformFails(now: number, error: unknown): void {
    const verdict = this.#host.breaker.failed(now);
    if (verdict.pauseUntil === 0) return;
    this.#host.pauseAll(verdict.pauseUntil);
    if (verdict.opened)
      this.#host.logger?.warn(
        { error: messageOf(error) },
        'the platform keeps failing: sending paused, probing',
      );
  }

  /** A 429 on one chat pauses that chat, unless several chats were hit within a window: then everything. */
  #scopeOf(scope: 'chat' | 'global', entry: Entry, lane: Lane, now: number): 'chat' | 'global' {
    if (scope === 'global' || lane.chatId === undefined) return 'global';
    // The chat had no other call in the window, so the per-chat limit cannot be what was hit.
    if (entry.chatCallsInWindow === 0) return 'global';
    const recent = this.#recentChat429;
    recent.push({ at: now, chatId: lane.chatId });
    while (recent.length > 0 && recent[0]!.at <= now - this.#chatWindowMs) recent.shift();
    if (recent.length > 32) recent.shift();
    const distinct = new Set(recent.map((r) => r.chatId)).size;
    return distinct >= this.#host.options.escalateAfterChats ? 'global' : 'chat';
  }

  /** Dead-letters queued jobs of a lane that would outlive their time-to-live during a pause. */
  #expireQueued(lane: Lane, until: number): void {
    if (!lane.queues) return;
    for (const entry of [...lane.queues.entries()]) {
      if (entry.deadline >= until) continue;
      this.#host.unqueue(entry);
      this.deadLetter(entry, 'rate-limited', 'a rate-limit pause outlasts its time-to-live');
    }
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
