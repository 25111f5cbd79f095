/**
 * The dispatch scheduler: sends API calls as fast as the platform's limits allow and never faster.
 * Two strict sliding windows (all calls; chat-scoped calls per chat), one FIFO set per chat served
 * round robin within four priority classes, scope-limited 429 pauses, in-place retries for
 * attachment.not.ready and network failures, dead letters with reasons. One timer for the whole
 * scheduler; per-chat state exists only while a chat has work or recent starts.
 */
import { ApiError, NetworkError } from '../errors.ts';
import type { OperationName } from '../operations.ts';
import { CircuitBreaker } from './breaker.ts';
import { Entry, type Lane, LaneQueues } from './chat-queues.ts';
import { type JobSpec, jobSpecOf } from './job-spec.ts';
import { LaneBoard } from './lane-board.ts';
import { MetricsRecorder, type SchedulerMetrics } from './metrics.ts';
import { type LoggerLike, resolveOptions, type SchedulerOptions, type TimerFactory } from './options.ts';
import { classIndexOf, queueIndexOf } from './priorities.ts';
import { decideRetry } from './retry-policy.ts';
import { chatCountIn, chatRecord, SlidingWindowLog } from './sliding-window.ts';
import {
  type ApiCaller,
  DeadLetterError,
  type DeadLetterReason,
  type Job,
  type OperationResult,
  type Priority,
} from './types.ts';

const WHERE_QUEUED = 0;
const WHERE_IN_FLIGHT = 1;
const WHERE_DELAYED = 2;
const WHERE_DONE = 3;

/** A unit of work that is not an API call but must still respect the global window (an upload host POST). */
export interface Task<T> {
  run: (signal: AbortSignal | undefined) => Promise<T>;
  priority?: Priority;
  ttlMs?: number;
  signal?: AbortSignal;
  /** Shown in metrics and dead letters. */
  label?: string;
}

export class Scheduler {
  private readonly options: ReturnType<typeof resolveOptions>;
  private readonly api: ApiCaller;
  private readonly now: () => number;
  private readonly setTimer: TimerFactory;
  private readonly logger: LoggerLike | undefined;
  private readonly globalLog: SlidingWindowLog;
  private readonly chatWindowMs: number;
  private readonly board: LaneBoard;
  private readonly recentChat429: { at: number; chatId: number }[] = [];
  /** Dialog chat ids by person, learned from sends by `user_id` (or told by `knowDialog`). */
  private readonly dialogs = new Map<number, number>();
  private readonly recorder = new MetricsRecorder();
  private globalPausedUntil = 0;
  private readonly breaker = new CircuitBreaker();
  /** Earliest start the pacing schedule allows. */
  private pacedAt = Number.NEGATIVE_INFINITY;
  private inFlight = 0;
  private pending = 0;
  private pumpQueued = false;
  private timerAt = Number.POSITIVE_INFINITY;
  private cancelTimer: (() => void) | undefined;
  private closed = false;
  private drainWaiters: (() => void)[] = [];

  constructor(options: SchedulerOptions) {
    this.options = resolveOptions(options);
    this.api = options.api;
    this.now = this.options.now;
    this.setTimer = this.options.setTimer;
    this.logger = options.logger;
    const { global, windowMs, safetyMargin } = this.options.limits;
    this.globalPausedUntil = options.startPausedMs ? this.now() + options.startPausedMs : 0;
    this.globalLog = new SlidingWindowLog(global, windowMs + safetyMargin);
    this.chatWindowMs = windowMs + safetyMargin;
    this.board = new LaneBoard(
      () => this.recorder.queuedTotal(),
      this.options.limits.perChat,
      this.chatWindowMs,
      this.options.classShareEvery,
      this.options.bulkShareEvery,
    );
  }

  /** Queues one API call; resolves with its decoded answer or rejects with a DeadLetterError. */
  submit<Op extends OperationName>(job: Job<Op>): Promise<OperationResult<Op>> {
    let spec: JobSpec;
    try {
      spec = jobSpecOf(job as Job);
    } catch (error) {
      return Promise.reject(error);
    }
    // `user_id=X` and the dialog with X are one chat on the platform: one per-chat budget, one lane.
    const target = spec.userTarget;
    if (target !== undefined) spec.chatId = this.dialogs.get(target) ?? spec.chatId;
    const done = this.enqueue(spec) as Promise<OperationResult<Op>>;
    if (target !== undefined && spec.op === 'sendMessage') {
      done.then(
        (result) => this.learnDialog(target, result),
        () => {},
      );
    }
    return done;
  }

  /** Tells the scheduler that `chatId` is the dialog with `userId`, so calls by either count as one chat. */
  knowDialog(userId: number, chatId: number): void {
    if (chatId > 0 && userId !== chatId) this.dialogs.set(userId, chatId);
  }

  private learnDialog(userId: number, result: unknown): void {
    const chatId = (result as { message?: { recipient?: { chat_id?: unknown } } })?.message?.recipient
      ?.chat_id;
    if (typeof chatId === 'number') this.knowDialog(userId, chatId);
  }

  /** Runs custom work (e.g. a POST to an upload host) in the unscoped lane: it counts against the global window. */
  run<T>(task: Task<T>): Promise<T> {
    return this.enqueue({
      op: task.label ?? 'task',
      args: {},
      chatId: undefined,
      userTarget: undefined,
      priority: task.priority ?? 'reply',
      ttlMs: task.ttlMs,
      mayRepeat: false,
      mediaKind: undefined,
      signal: task.signal,
      task: task.run,
    }) as Promise<T>;
  }

  /** A point-in-time view of queues, 429s, waits and dead letters. */
  metrics(): SchedulerMetrics {
    let chatsWithWork = 0;
    let pausedChats = 0;
    const now = this.now();
    for (const lane of this.board.lanes.values()) {
      if (lane.queues || lane.busy) chatsWithWork++;
      if (lane.pausedUntil > now) pausedChats++;
    }
    return this.recorder.snapshot({
      unscoped: this.board.unscoped.queues?.size ?? 0,
      chatsWithWork,
      inFlight: this.inFlight,
      pausedChats,
      globalUntil: this.globalPausedUntil > now ? this.globalPausedUntil : 0,
      chatsTracked: this.board.lanes.size,
      globalWindowUsed: this.globalLog.usedAt(now),
    });
  }

  /** Jobs waiting or in flight for one chat. */
  depthOf(chatId: number): number {
    const lane = this.board.lanes.get(chatId);
    return lane ? (lane.queues?.size ?? 0) + (lane.busy ? 1 : 0) : 0;
  }

  /** Resolves when nothing is queued or in flight; rejects if that takes longer than `timeoutMs`. */
  drain(timeoutMs?: number): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      let cancel: (() => void) | undefined;
      const done = () => {
        cancel?.();
        resolve();
      };
      this.drainWaiters.push(done);
      if (timeoutMs !== undefined) {
        cancel = this.setTimer(
          () => {
            this.drainWaiters = this.drainWaiters.filter((w) => w !== done);
            reject(new Error(`Scheduler.drain: ${this.pending} job(s) still pending after ${timeoutMs} ms`));
          },
          timeoutMs,
          true,
        );
      }
    });
  }

  /** Stops the scheduler: queued jobs are dead-lettered as `closed`; calls in flight finish but are not retried. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    for (const lane of this.board.allLanes()) {
      if (!lane.queues) continue;
      for (const entry of [...lane.queues.entries()])
        this.deadLetter(entry, 'closed', 'the scheduler was closed');
      lane.queues = null;
    }
    for (const entry of this.board.takeDelayed())
      this.deadLetter(entry, 'closed', 'the scheduler was closed');
  }

  // ---- queueing ----

  private enqueue(job: JobSpec): Promise<unknown> {
    const { chatId, priority, signal } = job;
    const classIndex = classIndexOf(priority);
    const now = this.now();
    return new Promise((resolve, reject) => {
      const ttl = job.ttlMs ?? this.options.ttlMs[priority];
      const entry = new Entry(
        job.op,
        job.args,
        classIndex,
        queueIndexOf(classIndex),
        now,
        now + ttl,
        job.mayRepeat,
        job.mediaKind,
        signal,
        resolve,
        reject,
      );
      entry.task = job.task;
      entry.chatId = chatId;
      this.pending++;
      if (this.closed) return this.deadLetter(entry, 'closed', 'the scheduler is closed');
      if (signal?.aborted) return this.deadLetter(entry, 'aborted', 'the signal had already fired');
      const lane = chatId === undefined ? this.board.unscoped : this.board.laneFor(chatId);
      entry.lane = lane;
      if (signal) {
        entry.onAbort = () => this.abort(entry);
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.requeue(entry, false);
      this.board.placeAfterSubmit(lane, now);
      this.schedulePump();
    });
  }

  /** Puts an entry in its lane's FIFO: at the tail when new, at the head when it is a retry. */
  private requeue(entry: Entry, atHead: boolean): void {
    const lane = entry.lane!;
    if (!lane.queues) {
      lane.queues = new LaneQueues();
      this.board.lanesWithWork++;
    }
    if (atHead) lane.queues.unshift(entry);
    else lane.queues.push(entry);
    entry.where = WHERE_QUEUED;
    this.recorder.queuedByPriority[entry.classIndex]!++;
  }

  private unqueue(entry: Entry): boolean {
    const queues = entry.lane?.queues;
    if (!queues?.remove(entry)) return false;
    this.recorder.queuedByPriority[entry.classIndex]!--;
    return true;
  }

  private abort(entry: Entry): void {
    if (entry.where === WHERE_QUEUED && this.unqueue(entry)) {
      this.deadLetter(entry, 'aborted', 'the caller aborted it while it waited');
      this.board.place(entry.lane!, this.now());
    } else if (entry.where === WHERE_DELAYED) {
      this.deadLetter(entry, 'aborted', 'the caller aborted it while it waited to retry');
    } // in flight: the API call sees the same signal and fails, and onFailure reports it
  }

  // ---- the pump ----

  private schedulePump(): void {
    if (this.pumpQueued || this.closed) return;
    this.pumpQueued = true;
    queueMicrotask(() => this.pump());
  }

  private pump(): void {
    this.pumpQueued = false;
    if (this.closed) return;
    const now = this.now();
    this.board.wake(now, (entry: Entry) => {
      if (entry.where !== WHERE_DELAYED) return false;
      this.requeue(entry, true);
      return true;
    });
    while (this.inFlight < this.options.maxInFlight) {
      if (this.globalFreeAt(now) > now) break;
      const lane = this.board.pickLane();
      if (!lane) break;
      this.dispatch(lane, now);
    }
    this.board.sweepIdle(now);
    this.arm(now);
  }

  private dispatch(lane: Lane, now: number): void {
    const queues = lane.queues!;
    const queue = queues.nextQueue(this.options.bulkShareEvery);
    const entry = queues.shift(queue as 0 | 1 | 2);
    this.recorder.queuedByPriority[entry.classIndex]!--;
    if (entry.deadline < now) {
      this.deadLetter(
        entry,
        'expired',
        `waited ${Math.round(now - entry.submittedAt)} ms, longer than its time-to-live`,
      );
      this.board.place(lane, now);
      return;
    }
    entry.globalSlot = this.globalLog.start(now + this.options.arrivalBoundMs);
    entry.dispatchedAt = now;
    // The pacing schedule advances one slot per start; after a late timer it may catch up by two slots.
    const spacing = this.globalLog.windowMs / this.globalLog.limit;
    this.pacedAt = Math.max(this.pacedAt + spacing, now - spacing);
    if (lane.chatId !== undefined) {
      entry.chatCallsInWindow = chatCountIn(lane, this.chatWindowMs, now);
      lane.busy = true; // one call per chat at a time keeps the chat's order on the wire
    } else {
      this.board.place(lane, now);
    }
    entry.attempts++;
    entry.where = WHERE_IN_FLIGHT;
    if (entry.firstDispatchAt < 0) {
      entry.firstDispatchAt = now;
      this.recorder.recordWait(entry.classIndex, now - entry.submittedAt);
    }
    this.inFlight++;
    this.recorder.dispatched++;
    const started = new Promise((resolve) =>
      resolve(
        entry.task
          ? entry.task(entry.signal)
          : this.api.call(
              entry.op as OperationName,
              entry.args as never,
              entry.signal ? { signal: entry.signal } : {},
            ),
      ),
    );
    started.then(
      (value) => this.onSuccess(entry, value),
      (error) => this.onFailure(entry, error),
    );
  }

  private onSuccess(entry: Entry, value: unknown): void {
    const lane = this.finishAttempt(entry);
    if (this.breaker.succeeded())
      this.logger?.warn({ op: entry.op }, 'the platform answers again: sending resumes');
    this.recorder.succeeded++;
    this.settle(entry);
    entry.resolve(value);
    if (!this.closed) {
      this.board.place(lane, this.now());
      this.schedulePump();
    }
  }

  private onFailure(entry: Entry, error: unknown): void {
    const lane = this.finishAttempt(entry);
    const now = this.now();
    entry.lastError = error;
    if (this.closed) {
      this.deadLetter(entry, 'closed', 'the scheduler was closed after a failed attempt');
      return;
    }
    const notReady = isNotReady(error);
    if (notReady) {
      entry.notReadyAttempts++;
      if (entry.notReadySince < 0) entry.notReadySince = now;
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
            chatScoped: lane.chatId !== undefined,
            mayRepeat: entry.retryAmbiguous,
            mediaKind: entry.mediaKind,
            notReadyElapsedMs: notReady ? now - entry.notReadySince : -1,
            notReadyAttempts: entry.notReadyAttempts,
            aborted: entry.signal?.aborted ?? false,
          },
          this.options.retry,
        );
    if (decision.kind === 'dead') {
      this.deadLetter(entry, decision.reason, decision.detail);
    } else if (decision.kind === 'pause') {
      const scope = this.pauseScope(decision.scope, entry, lane, now);
      const until = now + decision.pauseMs;
      this.recorder.http429[scope]++;
      this.logger?.warn(
        { op: entry.op, chatId: lane.chatId, scope, pauseMs: decision.pauseMs },
        'rate limited: pausing scope',
      );
      if (scope === 'chat') lane.pausedUntil = Math.max(lane.pausedUntil, until);
      else this.globalPausedUntil = Math.max(this.globalPausedUntil, until);
      if (entry.deadline < until) {
        this.deadLetter(
          entry,
          'rate-limited',
          `Retry-After ${decision.pauseMs} ms outlasts its time-to-live`,
        );
      } else {
        this.requeue(entry, true);
      }
      for (const paused of scope === 'chat' ? [lane] : this.board.allLanes())
        this.expireQueued(paused, until);
    } else {
      const until = now + decision.delayMs;
      this.recorder.retries[notReady ? 'notReady' : isNetwork(error) ? 'network' : 'serverError']++;
      if (!notReady) this.holdWhilePlatformFails(now, error);
      if (entry.deadline < until) {
        this.deadLetter(
          entry,
          'expired',
          `its time-to-live ends before the next retry (last error: ${messageOf(error)})`,
        );
      } else if (lane.chatId !== undefined) {
        lane.pausedUntil = Math.max(lane.pausedUntil, until); // holds this chat only, keeping the job's place
        this.requeue(entry, true);
      } else {
        entry.where = WHERE_DELAYED;
        this.board.delay(entry, until);
      }
    }
    this.board.place(lane, now);
    this.schedulePump();
  }

  /** Transient failures in a row open the breaker: everything waits for the probe (breaker.ts). */
  private holdWhilePlatformFails(now: number, error: unknown): void {
    const verdict = this.breaker.failed(now);
    if (verdict.pauseUntil === 0) return;
    this.globalPausedUntil = Math.max(this.globalPausedUntil, verdict.pauseUntil);
    if (verdict.opened)
      this.logger?.warn({ error: messageOf(error) }, 'the platform keeps failing: sending paused, probing');
  }

  private finishAttempt(entry: Entry): Lane {
    const lane = entry.lane!;
    const now = this.now();
    this.inFlight--;
    this.globalLog.settle(entry.globalSlot, now);
    this.recorder.recordCall(now - entry.dispatchedAt);
    if (lane.chatId !== undefined) {
      lane.busy = false;
      const arrivedBy = Math.min(now, entry.dispatchedAt + this.options.arrivalBoundMs);
      chatRecord(lane, this.options.limits.perChat, arrivedBy);
    }
    return lane;
  }

  /** A 429 on one chat pauses that chat, unless several chats were hit within a window: then everything. */
  private pauseScope(scope: 'chat' | 'global', entry: Entry, lane: Lane, now: number): 'chat' | 'global' {
    if (scope === 'global' || lane.chatId === undefined) return 'global';
    // The chat had no other call in the window, so the per-chat limit cannot be what was hit.
    if (entry.chatCallsInWindow === 0) return 'global';
    const recent = this.recentChat429;
    recent.push({ at: now, chatId: lane.chatId });
    while (recent.length > 0 && recent[0]!.at <= now - this.chatWindowMs) recent.shift();
    if (recent.length > 32) recent.shift();
    const distinct = new Set(recent.map((r) => r.chatId)).size;
    return distinct >= this.options.escalateAfterChats ? 'global' : 'chat';
  }

  /** Dead-letters queued jobs of a lane that would outlive their time-to-live during a pause. */
  private expireQueued(lane: Lane, until: number): void {
    if (!lane.queues) return;
    for (const entry of [...lane.queues.entries()]) {
      if (entry.deadline >= until) continue;
      this.unqueue(entry);
      this.deadLetter(entry, 'rate-limited', 'a rate-limit pause outlasts its time-to-live');
    }
  }

  private deadLetter(entry: Entry, reason: DeadLetterReason, detail: string): void {
    const error = new DeadLetterError(
      reason,
      entry.op,
      entry.chatId,
      entry.lastError,
      detail,
      entry.attempts > 0,
    );
    this.recorder.recordDeadLetter({
      at: Date.now(),
      operation: entry.op,
      chatId: entry.chatId,
      reason,
      message: error.message,
    });
    // Closing and aborting are no failures: the owner asked for them (what was queued goes back to it).
    if (reason !== 'closed' && reason !== 'aborted')
      this.logger?.warn({ op: entry.op, chatId: entry.chatId, reason }, 'job dead-lettered');
    this.settle(entry);
    entry.reject(error);
  }

  private settle(entry: Entry): void {
    entry.where = WHERE_DONE;
    if (entry.onAbort) entry.signal?.removeEventListener('abort', entry.onAbort);
    this.pending--;
    if (this.pending === 0 && this.drainWaiters.length > 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }

  /**
   * When the next call may start as far as the global scope goes: after any global pause, when the
   * window has room, and (pacing) one window/limit after the previous start, so that the window is
   * not spent in one burst: a chat's second call of a second then still finds a free slot.
   */
  private globalFreeAt(now: number): number {
    const paced = this.options.pacing ? this.pacedAt : now;
    return Math.max(this.globalPausedUntil, this.globalLog.nextFreeAt(now), paced, now);
  }

  /** Arms the one timer for the earliest moment something can happen. */
  private arm(now: number): void {
    let at = Number.POSITIVE_INFINITY;
    let keepAlive = false;
    if (this.board.hasReady() && this.inFlight < this.options.maxInFlight) {
      at = this.globalFreeAt(now);
      keepAlive = true;
    }
    const wakeAt = this.board.nextWakeAt();
    if (wakeAt !== undefined && wakeAt < at) {
      at = wakeAt;
      keepAlive = true;
    }
    const evictAt = this.board.nextEvictionAt();
    if (evictAt !== undefined && at === Number.POSITIVE_INFINITY) at = evictAt;
    if (at === this.timerAt && this.cancelTimer) return;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.timerAt = at;
    if (at === Number.POSITIVE_INFINITY) return;
    this.cancelTimer = this.setTimer(
      () => {
        this.cancelTimer = undefined;
        this.timerAt = Number.POSITIVE_INFINITY;
        this.pump();
      },
      Math.max(0, at - now),
      keepAlive,
    );
  }
}

function isNotReady(error: unknown): boolean {
  return error instanceof ApiError && error.isAttachmentNotReady;
}

function isNetwork(error: unknown): boolean {
  return error instanceof NetworkError;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
