/**
 * What support and the playground read and change in a database (`engine.sessions`, the side panel),
 * whichever it is: sessions and their history, hand-made ends and jumps, the playground's clock, dead
 * letters, and what a deploy's plan reads. The SQLite adapter (store/sqlite/support.ts) answers at once;
 * the PostgreSQL one (store/postgres/support.ts) with promises. Each hand-made change is one transaction.
 */
import type { Answer } from './index.ts';
import type { OutboxRow } from './outbox.ts';
import type {
  FlowVersionSource,
  InboxHistoryRow,
  SessionListQuery,
  SessionRow,
  SessionSummary,
  StepLogRow,
  TimerRow,
} from './rows.ts';
import type { TaskRow } from './tasks.ts';

/** A conversation's session and what hangs on it now. */
export interface ConversationRows {
  session: SessionRow;
  /** Timers armed now, newest first. */
  timers: TimerRow[];
  /** Its latest calls and tasks, newest first. */
  calls: OutboxRow[];
  tasks: TaskRow[];
}

/** A session written by hand on a step (a jump, a transcript's `start_at`): the store numbers its revision. */
export interface PlacedSession {
  conversationKey: string;
  flowId: string;
  flowVersion: string;
  /** JSON texts, as stored. */
  stateValue: string;
  snapshot: string;
  /** The step's name for the funnel's step log (`ask_name`, `pay>card`). */
  step: string;
  chatId: number | null;
  userId: number | null;
  locale: string | null;
}

/**
 * A jump: what ran before in the conversation ends (timers cancelled, unsent calls dropped, tasks
 * cancelled, each with `reason`), and an inbox event of `kind` with `payload` enters the placed step.
 */
export interface JumpEvent {
  kind: string;
  payload: string;
  reason: string;
}

/** What a deploy's plan reads (engine/flows-plan.ts): active sessions by version, their snapshots, sources. */
export interface PlanSources {
  sessions: {
    activeByVersion(): { flowId: string; flowVersion: string; n: number }[];
    activeSnapshots(flowId: string, flowVersion: string): Iterable<{ snapshot: string }>;
  };
  versions: { sources(v: readonly { flowId: string; version: string }[]): FlowVersionSource[] };
}

/** The support side of a store. `Sync` is true when every method answers at once. */
export interface SupportPort<Sync extends boolean = boolean> {
  /** Sessions, most recently updated first, without snapshots. */
  listSessions(query: SessionListQuery): Answer<Sync, SessionSummary[]>;
  /** A conversation's session with its armed timers and its latest `recent` calls and tasks. */
  conversation(key: string, recent: number): Answer<Sync, ConversationRows | undefined>;
  /** A conversation's inbox events, newest first, ids below `beforeId`. */
  history(key: string, limit: number, beforeId?: number): Answer<Sync, InboxHistoryRow[]>;
  /** Ends an active session (`stopped`) with its timers, unsent calls and tasks; false when none ran. */
  endSession(key: string, reason: string, now: number): Answer<Sync, boolean>;
  /** Calls that failed for good, newest first. */
  deadLetters(limit: number): Answer<Sync, OutboxRow[]>;
  /** Failed calls back in line (all without `ids`); how many. */
  retryDeadLetters(ids: readonly number[] | undefined): Answer<Sync, number>;
  /** Failed calls given up (all without `ids`); how many. */
  dropDeadLetters(ids: readonly number[] | undefined, now: number): Answer<Sync, number>;
  /** The conversation's armed timers made due `ms` sooner, none before `now`; how many. */
  bringTimersForward(key: string, ms: number, now: number): Answer<Sync, number>;
  /** One armed timer of the conversation made due at `now`; false when it is not armed. */
  fireTimerNow(key: string, timerId: number, now: number): Answer<Sync, boolean>;
  /**
   * Writes `place` over whatever session the conversation had (revision: the stored one + 1) with an
   * `enter` line in the step log; with `jump`, ends what ran before and queues the jump's event. Returns
   * the new revision.
   */
  placeSession(place: PlacedSession, now: number, jump?: JumpEvent): Answer<Sync, number>;
  /** What the plan reads, for flows whose latest version `latest` names (flow id → version). */
  planSources(latest: ReadonlyMap<string, string>): Answer<Sync, PlanSources>;
  /** The funnel's step log of a flow (or all) since `since`: consumed at once on a synchronous store. */
  stepLog(query: {
    flowId?: string;
    since?: number;
  }): Sync extends true ? Iterable<StepLogRow> : AsyncIterable<StepLogRow>;
}
