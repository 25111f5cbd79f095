/**
 * The engine's store: everything one engine needs of a database, whichever it is. Two adapters implement
 * it: `sqliteStore` (one process; every answer is immediate, so `processPending()` and `tick()` answer
 * synchronously) and `postgresStore` (several processes; answers are promises, and leases share the
 * partitions). The engine, its dispatcher and its task runner are written once over this port.
 */
import type { CampaignPort } from './campaigns.ts';
import type { Answer, MaybePromise } from './index.ts';
import type { LeaseNews, LeasePort } from './leases.ts';
import type { OutboxPort } from './outbox.ts';
import type {
  AppendResult,
  GraceReport,
  HandoffStepRef,
  InboxEntry,
  InboxEvent,
  SessionRow,
  StepLogRow,
  TimerGrace,
} from './rows.ts';
import type { SupportPort } from './support.ts';
import type { Partitions, TaskPort } from './tasks.ts';
import type { ApplyResult, PlannedWrites } from './write-plan.ts';

export type { Answer } from './index.ts';
/** The partitions a process handles: all of them (one process), or those it holds leases on. */
export type { Partitions } from './tasks.ts';

/** A flow version pinned by running sessions. */
export interface PinnedVersion {
  flowId: string;
  flowVersion: string;
  /** Active sessions pinned to it. */
  n: number;
}

/** What to prune: rows settled before these times (ms). */
export interface PruneBefore {
  /** Settled inbox rows (intake keeps its own retention on SQLite). */
  inbox: number;
  /** Finished outbox rows, settled timers and tasks. */
  settled: number;
  stepLog: number;
}

/** The engine's store. `Sync` is true when every method answers at once. */
export interface EngineStore<Sync extends boolean = boolean> {
  readonly kind: 'sqlite' | 'postgres';
  readonly synchronous: Sync;
  /**
   * How many planned batches the engine may hand over before the first is answered (default 2: one
   * committing, one planned behind it). PostgreSQL commits batches with no conversation in common side by
   * side, so a third keeps its connections busy.
   */
  readonly batchesInFlight?: number;
  /**
   * Up to `limit` pending inbox events of `partitions` with ids above `afterId`, in arrival order, leaving
   * out the ids of `exclude` (the batches in flight).
   */
  pending(
    partitions: Partitions,
    afterId: number,
    limit: number,
    exclude?: ReadonlySet<number>,
  ): Answer<Sync, InboxEvent[]>;
  /**
   * Appends inbox entries (external events) in one transaction, duplicates by de-duplication key ignored;
   * durable when it answers. SQLite: on the writer thread when there is one, so it never waits for the
   * engine's write lock; PostgreSQL: with a notification, so the process that owns the conversation wakes.
   */
  append(entries: readonly InboxEntry[]): MaybePromise<AppendResult[]>;
  /** Events waiting in `partitions`. */
  pendingCount(partitions: Partitions): Answer<Sync, number>;
  /** The stored sessions of `keys` (absent keys have none). */
  sessions(keys: readonly string[]): Answer<Sync, ReadonlyMap<string, SessionRow>>;
  /** Active sessions at one of `steps` whose handoff request is open and untaken (docs/handoff.md). */
  waitingHandoffs(steps: readonly HandoffStepRef[]): Answer<Sync, number>;
  /**
   * Commits a planned batch in one transaction, in the order batches are given; `member` holds the
   * partitions' leases (checked in the same transaction; `LeaseLostError` when one moved). May answer
   * later even on a synchronous store (SQLite's writer thread commits on another core).
   */
  apply(batch: PlannedWrites[], member: string, now: number): MaybePromise<ApplyResult[]>;
  /** `apply` on the caller's own connection, for `processPending()`. */
  applyHere(batch: PlannedWrites[], member: string, now: number): Answer<Sync, ApplyResult[]>;
  /** Batches handed to `apply` and not answered yet. */
  readonly applying: number;
  /** Moves up to `limit` timers of `partitions` due at `now` into the inbox; returns how many. */
  fireDueTimers(partitions: Partitions, now: number, limit: number): Answer<Sync, number>;
  /** The earliest firing time of an armed timer of `partitions`. */
  nextTimerAt(partitions: Partitions): Answer<Sync, number | undefined>;
  /** The grace rule for overdue timers of `partitions` (at start, or when a process takes partitions). */
  timerGrace(partitions: Partitions, now: number, grace: Required<TimerGrace>): Answer<Sync, GraceReport>;
  /** The button-signing secret, created once and shared by every process. */
  buttonSecret(now: number): Answer<Sync, string>;
  /** Records a flow version (with its source, which rebuilds it for sessions pinned to it later). */
  recordFlowVersion(flowId: string, version: string, now: number, source?: string): Answer<Sync, void>;
  /** The stored sources of `versions`, by `flowId@version`. */
  flowSources(
    versions: readonly { flowId: string; flowVersion: string }[],
  ): Answer<Sync, ReadonlyMap<string, string>>;
  /** Flow versions active sessions are pinned to. */
  pinnedVersions(): Answer<Sync, PinnedVersion[]>;
  /** The funnel's step log of a flow (or all) since `since`, a page at a time. */
  stepLog(query?: { flowId?: string; since?: number }): AsyncIterable<StepLogRow>;
  /** Deletes what `before` says, in small chunks; returns how many rows of each kind. */
  prune(
    before: PruneBefore,
  ): Answer<Sync, Record<'inbox' | 'outbox' | 'timers' | 'tasks' | 'stepLog', number>>;
  /** The outbox, as the dispatcher claims, settles and releases its calls. */
  readonly outbox: OutboxPort;
  /** The task outbox as `member`'s task runner claims and records its tasks. */
  taskPort(member: string): TaskPort;
  /** What support and the playground read and change (`engine.sessions`, the side panel). */
  readonly support: SupportPort<Sync>;
  /** Campaigns: segments, campaigns and their recipients (docs/campaigns.md). */
  readonly campaigns: CampaignPort;
  /** Leases, when several processes may share the database. */
  readonly leases?: LeasePort;
  /**
   * Hears other processes' commits (new inbox rows, new outbox rows) and their lease news. `session`, when
   * given, names the listening connection on the database's side: it ends when this process dies, which the
   * others see at once (`LeasePort`: a member whose session is gone is dead, whatever its heartbeat says).
   */
  listen?(
    hear: { inbox(): void; outbox(): void; leases?(news: LeaseNews): void },
    lost: () => void,
  ): Promise<{ close(): Promise<void>; session?: number } | undefined>;
  /** Tells the dispatcher (in another process) that calls were committed. */
  announceOutbox?(): Promise<void>;
}
