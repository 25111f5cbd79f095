/**
 * Counters the scheduler keeps for operators: queue depth per scope, 429s per scope, how long jobs
 * waited before their first attempt, and dead letters. Fixed memory: histograms have fixed buckets
 * and only the most recent dead letters are kept.
 */
import { type DeadLetterReason, type DeadLetterRecord, PRIORITIES, type Priority } from './types.ts';

/** Upper bounds (ms) of the wait-time histogram buckets; the last bucket is open. */
const BUCKETS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 300_000];

/** Summary of a wait-time histogram: percentiles are bucket upper bounds (conservative). */
export interface WaitSummary {
  count: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

/** A point-in-time view of the scheduler. */
export interface SchedulerMetrics {
  /** Jobs waiting (not in flight), in total, per priority, in the lane of calls tied to no chat, and how many chats have work. */
  queued: { total: number; byPriority: Record<Priority, number>; unscoped: number; chatsWithWork: number };
  /** Calls started and not yet answered. */
  inFlight: number;
  /** Calls started since creation (retries included). */
  dispatched: number;
  /** Jobs resolved with a result. */
  succeeded: number;
  /** 429 answers received, by the scope they paused. */
  http429: { chat: number; global: number };
  /** Chats paused by a 429 right now, and the end of a global pause (0 when none). */
  paused: { chats: number; globalUntil: number };
  /** Retries scheduled after attachment.not.ready, network errors and 5xx. */
  retries: { notReady: number; network: number; serverError: number };
  /** Time from submit to first attempt, per priority. */
  waitMs: Record<Priority, WaitSummary>;
  /** Time from dispatch to answer of each attempt (the platform's latency as the scheduler sees it). */
  callMs: WaitSummary;
  /** Jobs given up, by reason, and the most recent ones. */
  deadLetters: {
    total: number;
    byReason: Partial<Record<DeadLetterReason, number>>;
    recent: DeadLetterRecord[];
  };
  /**
   * Chat actions ("typing…"): sent; replaced while queued by a newer one for the same chat (settled
   * as `superseded`, not dead letters); and given up because their short time-to-live ran out
   * (`expired` or `rate-limited`, also among the dead letters).
   */
  chatActions: { sent: number; coalesced: number; expired: number };
  /** Chats whose state is in memory (queued work, recent starts or a pause). */
  chatsTracked: number;
  /** Starts in the current global window. */
  globalWindowUsed: number;
  /** Starts the global window allows (the platform's limit less the safety margin). */
  globalWindowLimit: number;
}

/** A fixed-bucket histogram. */
class Histogram {
  private readonly counts = new Array<number>(BUCKETS_MS.length + 1).fill(0);
  private total = 0;
  private max = 0;

  add(ms: number): void {
    let i = 0;
    while (i < BUCKETS_MS.length && ms > BUCKETS_MS[i]!) i++;
    this.counts[i]!++;
    this.total++;
    if (ms > this.max) this.max = ms;
  }

  summary(): WaitSummary {
    return {
      count: this.total,
      p50Ms: this.quantile(0.5),
      p95Ms: this.quantile(0.95),
      maxMs: Math.round(this.max),
    };
  }

  private quantile(q: number): number {
    if (this.total === 0) return 0;
    const rank = Math.ceil(q * this.total);
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(BUCKETS_MS[i] ?? this.max, Math.round(this.max));
    }
    return Math.round(this.max);
  }
}

/** The mutable counters behind SchedulerMetrics. */
export class MetricsRecorder {
  dispatched = 0;
  succeeded = 0;
  readonly http429 = { chat: 0, global: 0 };
  readonly retries = { notReady: 0, network: 0, serverError: 0 };
  readonly queuedByPriority = PRIORITIES.map(() => 0);
  readonly chatActions = { sent: 0, coalesced: 0, expired: 0 };
  private readonly waits = PRIORITIES.map(() => new Histogram());
  private readonly calls = new Histogram();
  private deadTotal = 0;
  private readonly deadByReason: Partial<Record<DeadLetterReason, number>> = {};
  private readonly recentDead: DeadLetterRecord[] = [];

  constructor(private readonly keepDeadLetters = 100) {}

  /** Jobs waiting in all classes. */
  queuedTotal(): number {
    const q = this.queuedByPriority;
    return q[0]! + q[1]! + q[2]! + q[3]!;
  }

  recordCall(ms: number): void {
    this.calls.add(ms);
  }

  recordWait(classIndex: number, ms: number): void {
    this.waits[classIndex]!.add(ms);
  }

  recordDeadLetter(record: DeadLetterRecord): void {
    this.deadTotal++;
    this.deadByReason[record.reason] = (this.deadByReason[record.reason] ?? 0) + 1;
    this.recentDead.push(record);
    if (this.recentDead.length > this.keepDeadLetters) this.recentDead.shift();
  }

  snapshot(live: {
    unscoped: number;
    chatsWithWork: number;
    inFlight: number;
    pausedChats: number;
    globalUntil: number;
    chatsTracked: number;
    globalWindowUsed: number;
    globalWindowLimit: number;
  }): SchedulerMetrics {
    const byPriority = Object.fromEntries(PRIORITIES.map((p, i) => [p, this.queuedByPriority[i]!])) as Record<
      Priority,
      number
    >;
    return {
      queued: {
        total: this.queuedByPriority.reduce((a, b) => a + b, 0),
        byPriority,
        unscoped: live.unscoped,
        chatsWithWork: live.chatsWithWork,
      },
      inFlight: live.inFlight,
      dispatched: this.dispatched,
      succeeded: this.succeeded,
      http429: { ...this.http429 },
      paused: { chats: live.pausedChats, globalUntil: live.globalUntil },
      retries: { ...this.retries },
      waitMs: Object.fromEntries(PRIORITIES.map((p, i) => [p, this.waits[i]!.summary()])) as Record<
        Priority,
        WaitSummary
      >,
      callMs: this.calls.summary(),
      deadLetters: {
        total: this.deadTotal,
        byReason: { ...this.deadByReason },
        recent: [...this.recentDead],
      },
      chatActions: { ...this.chatActions },
      chatsTracked: live.chatsTracked,
      globalWindowUsed: live.globalWindowUsed,
      globalWindowLimit: live.globalWindowLimit,
    };
  }
}
