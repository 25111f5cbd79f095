/**
 * The rate-limit scheduler: sends API calls as fast as the platform's limits allow and never faster.
 * Two strict sliding windows (all calls; chat-scoped calls per chat), one FIFO set per chat served
 * round robin within four priority classes, scope-limited 429 pauses, in-place retries for
 * attachment.not.ready and network failures, dead letters with reasons. One timer for the whole
 * scheduler; per-chat state exists only while a chat has work or recent starts.
 *
 * Read-backs (`getMessages` by `chat_id`) and chat actions ("typing…") wait in their chat's lane, in
 * order with it, without spending its 2/s (the platform does not count them per chat); calls tied to
 * no chat have one lane per FIFO (express: the long poll; main; bulk), each keeping its own place.
 *
 * No class starves: with K lanes ready in a class, a lane gets its turn within K turns of that class
 * (2K while a boosted chat takes every other turn), and a class with ready work gets one of every
 * classShareEvery + 1 dispatches (+ 4 with all four classes busy): the bound is worked out in
 * docs/client.md ("No class of call starves another") and checked by scheduler-lanes.test.ts.
 */

import type { OperationName } from '../operations.ts';
import { CircuitBreaker } from './breaker.ts';
import { Entry, type Lane, WHERE } from './chat-queues.ts';
import { DialogDirectory } from './dialog-directory.ts';
import { FailureHandler } from './failures.ts';
import { type JobSpec, jobSpecOf } from './job-spec.ts';
import { LaneBoard } from './lane-board.ts';
import { MetricsRecorder, type SchedulerMetrics } from './metrics.ts';
import { type LoggerLike, resolveOptions, type SchedulerOptions, type TimerFactory } from './options.ts';
import { PendingJobs } from './pending.ts';
import { BULK_CLASS, classIndexOf, queueIndexOf } from './priorities.ts';
import { LaneQueueing, queuedActionLike } from './queueing.ts';
import { chatCountIn, chatRecord, SlidingWindowLog } from './sliding-window.ts';
import { StartGate } from './start-gate.ts';
import type { ApiCaller, DeadLetterReason, Job, OperationResult, Task } from './types.ts';

export class Scheduler {
  private readonly options: ReturnType<typeof resolveOptions>;
  private readonly api: ApiCaller;
  private readonly now: () => number;
  private readonly setTimer: TimerFactory;
  private readonly logger: LoggerLike | undefined;
  private readonly globalLog: SlidingWindowLog;
  private readonly chatWindowMs: number;
  private readonly board: LaneBoard;
  private readonly dialogs = new DialogDirectory();
  private readonly recorder = new MetricsRecorder();
  private readonly queueing: LaneQueueing;
  private globalPausedUntil = 0;
  private readonly breaker = new CircuitBreaker();
  private readonly failures: FailureHandler;
  private readonly gate: StartGate;
  private inFlight = 0;
  private readonly pending = new PendingJobs();
  private timerAt = Number.POSITIVE_INFINITY;
  private pumpQueued = false;
  private cancelTimer: (() => void) | undefined;
  private closed = false;

  constructor(options: SchedulerOptions) {
    this.options = resolveOptions(options);
    this.api = options.api;
    this.now = this.options.now;
    this.setTimer = this.options.setTimer;
    this.logger = options.logger;
    const { global, windowMs, safetyMargin } = this.options.limits;
    this.globalPausedUntil = options.startPausedMs ? this.now() + options.startPausedMs : 0;
    this.globalLog = new SlidingWindowLog(global, windowMs + safetyMargin);
    this.gate = new StartGate(this.globalLog, this.options.pacing, this.options.bulkReserve);
    this.chatWindowMs = windowMs + safetyMargin;
    this.board = new LaneBoard(
      () => this.recorder.queuedTotal(),
      this.options.limits.perChat,
      this.chatWindowMs,
      this.options.classShareEvery,
      this.options.bulkShareEvery,
    );
    this.queueing = new LaneQueueing(this.recorder, this.board, (entry) => this.settle(entry));
    this.failures = new FailureHandler(
      {
        options: this.options,
        logger: this.logger,
        recorder: this.recorder,
        board: this.board,
        breaker: this.breaker,
        requeueAtHead: (entry) => this.queueing.requeue(entry, true),
        unqueue: (entry) => this.queueing.unqueue(entry),
        delay: (entry, until) => {
          entry.where = WHERE.delayed;
          this.board.delay(entry, until);
        },
        settle: (entry) => this.settle(entry),
        pauseAll: (until) => {
          this.globalPausedUntil = Math.max(this.globalPausedUntil, until);
        },
      },
      this.chatWindowMs,
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
    return this.dialogs.submit(spec, (s) => this.enqueue(s)) as Promise<OperationResult<Op>>;
  }

  /** Runs custom work (e.g. a POST to an upload host) in the unscoped lane: it counts against the global window. */
  run<T>(task: Task<T>): Promise<T> {
    return this.enqueue({
      op: task.label ?? 'task',
      args: {},
      chatId: undefined,
      countsPerChat: false,
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
      unscoped: this.board.unscoped.reduce((n, lane) => n + (lane.queues?.size ?? 0), 0),
      chatsWithWork,
      inFlight: this.inFlight,
      pausedChats,
      globalUntil: this.globalPausedUntil > now ? this.globalPausedUntil : 0,
      chatsTracked: this.board.lanes.size,
      globalWindowUsed: this.globalLog.usedAt(now),
      globalWindowLimit: this.globalLog.limit,
    });
  }

  /** Jobs waiting or in flight for one chat. */
  depthOf(chatId: number): number {
    const lane = this.board.lanes.get(chatId);
    return lane ? (lane.queues?.size ?? 0) + (lane.busy ? 1 : 0) : 0;
  }

  /** Resolves when nothing is queued or in flight; rejects if that takes longer than `timeoutMs`. */
  drain(timeoutMs?: number): Promise<void> {
    return this.pending.drained(this.setTimer, timeoutMs);
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
        // A chat action waits in its chat's main FIFO whatever its class: in the bulk FIFO it would sit
        // behind up to bulkShareEvery of the chat's replies, longer than it is worth.
        job.op === 'sendAction' && chatId !== undefined ? 1 : queueIndexOf(classIndex),
        now,
        now + ttl,
        job.mayRepeat,
        job.mediaKind,
        signal,
        resolve,
        reject,
      );
      Object.assign(entry, { task: job.task, onStart: job.onStart, chatId });
      this.pending.added();
      if (this.closed) return this.deadLetter(entry, 'closed', 'the scheduler is closed');
      if (signal?.aborted) return this.deadLetter(entry, 'aborted', 'the signal had already fired');
      entry.countsPerChat = job.countsPerChat;
      const lane = chatId === undefined ? this.board.unscoped[entry.queueIndex] : this.board.laneFor(chatId);
      entry.lane = lane;
      if (signal) {
        entry.onAbort = () => this.abort(entry);
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      const older = lane.chatId === undefined ? undefined : queuedActionLike(lane, entry);
      if (older) this.queueing.coalesce(older, entry);
      else this.queueing.requeue(entry, false);
      this.board.placeAfterSubmit(lane, now);
      this.schedulePump();
    });
  }

  private abort(entry: Entry): void {
    if (entry.where === WHERE.queued && this.queueing.unqueue(entry)) {
      this.deadLetter(entry, 'aborted', 'the caller aborted it while it waited');
      this.board.place(entry.lane!, this.now());
    } else if (entry.where === WHERE.delayed) {
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
      if (entry.where !== WHERE.delayed) return false;
      this.queueing.requeue(entry, true);
      return true;
    });
    while (this.inFlight < this.options.maxInFlight) {
      if (this.globalFreeAt(now, false) > now) break;
      // Bulk waits while the window's reserve is short: the classes before it go first (PRIORITIES).
      const lane = this.board.pickLane(this.globalFreeAt(now, true) > now ? BULK_CLASS : undefined);
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
    entry.globalTicket = this.globalLog.start(now + this.options.arrivalBoundMs, now);
    entry.dispatchedAt = now;
    this.gate.started(now, entry.classIndex >= BULK_CLASS);
    if (lane.chatId !== undefined) {
      entry.chatCallsInWindow = entry.countsPerChat ? chatCountIn(lane, this.chatWindowMs, now) : 0;
      lane.busy = true; // one call per chat at a time keeps the chat's order on the wire
    } else {
      this.board.place(lane, now);
    }
    entry.attempts++;
    entry.where = WHERE.inFlight;
    if (entry.firstDispatchAt < 0) {
      entry.firstDispatchAt = now;
      this.recorder.recordWait(entry.classIndex, now - entry.submittedAt);
    }
    this.inFlight++;
    this.recorder.dispatched++;
    const call = () =>
      entry.task
        ? entry.task(entry.signal)
        : Promise.resolve(entry.onStart?.()).then(() =>
            this.api.call(
              entry.op as OperationName,
              entry.args as never,
              entry.signal ? { signal: entry.signal } : {},
            ),
          );
    // Among several processes, a call outside the dispatcher also takes a start in the bot's shared budget.
    const budget = this.options.sharedBudget;
    const started = budget?.applies()
      ? budget.acquire(Math.max(0, entry.deadline - now), entry.signal).then((grant) =>
          Promise.resolve()
            .then(call)
            .finally(() => grant.settle()),
        )
      : new Promise((resolve) => resolve(call()));
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
    if (entry.op === 'sendAction') this.recorder.chatActions.sent++;
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
    this.failures.failed(entry, lane, error, now);
    this.board.place(lane, now);
    this.schedulePump();
  }

  private finishAttempt(entry: Entry): Lane {
    const lane = entry.lane!;
    const now = this.now();
    this.inFlight--;
    this.globalLog.settle(entry.globalTicket, now);
    this.recorder.recordCall(now - entry.dispatchedAt);
    if (lane.chatId !== undefined) {
      lane.busy = false;
      const arrivedBy = Math.min(now, entry.dispatchedAt + this.options.arrivalBoundMs);
      if (entry.countsPerChat) chatRecord(lane, this.options.limits.perChat, arrivedBy);
    }
    return lane;
  }

  private deadLetter(entry: Entry, reason: DeadLetterReason, detail: string): void {
    this.failures.deadLetter(entry, reason, detail);
  }

  private settle(entry: Entry): void {
    entry.where = WHERE.done;
    if (entry.onAbort) entry.signal?.removeEventListener('abort', entry.onAbort);
    this.pending.settled();
  }

  /**
   * When the next call may start as far as the global scope goes: after any global pause, when the
   * window has room, and (pacing) one window/limit after the previous start, so that the window is
   * not spent in one burst: a chat's second call of a second then still finds a free slot.
   */
  private globalFreeAt(now: number, bulk: boolean): number {
    return this.gate.freeAt(now, this.globalPausedUntil, bulk);
  }

  /** Arms the one timer for the earliest moment something can happen. */
  private arm(now: number): void {
    let at = Number.POSITIVE_INFINITY;
    let keepAlive = false;
    if (this.board.hasReady() && this.inFlight < this.options.maxInFlight) {
      at = this.globalFreeAt(now, !this.board.hasReady(BULK_CLASS));
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
