/**
 * The rows both adapters read and write, and the errors they share: the contract of the tables, written
 * once. SQLite's table files (`store/sessions.ts`, `inbox.ts`, …) and PostgreSQL's adapter (`store/postgres/`)
 * both take them from here, so neither adapter depends on the other.
 */
import { BotflowError } from '../../errors/index.ts';

/** A session as stored. `snapshot` and `stateValue` are JSON text. */
export interface SessionRow {
  conversationKey: string;
  flowId: string;
  flowVersion: string;
  status: 'active' | 'done' | 'stopped';
  stateValue: string;
  snapshot: string;
  revision: number;
  stepInstance: number;
  startedRevision: number;
  chatId: number | null;
  userId: number | null;
  locale: string | null;
  startedAt: number;
  updatedAt: number;
}

/** One line of a session listing (no snapshot). */
export type SessionSummary = Omit<SessionRow, 'snapshot'>;

/** Another writer committed a step of this conversation first: re-read and retry. */
export class RevisionConflictError extends BotflowError {
  override name = 'RevisionConflictError';
  constructor(
    readonly conversationKey: string,
    readonly expectedRevision: number,
  ) {
    super(
      'BOTFLOW_REVISION_CONFLICT',
      `session ${conversationKey} is no longer at revision ${expectedRevision}: another writer committed a step first`,
    );
  }
}

/** Filters of a session listing. */
export interface SessionListQuery {
  status?: SessionRow['status'];
  flowId?: string;
  /** Only sessions updated before this time (ms): page with the last row's `updatedAt`. */
  updatedBefore?: number;
  /** At most this many rows (default 50, at most 1000), most recently updated first. */
  limit?: number;
}

/** What may be in the inbox: updates from the platform now; the engine adds its own kinds. */
export type InboxKind = 'update' | 'timer' | 'effect_result' | (string & {});

/** Where a row is in its life. Only `pending` rows are work; the others wait for pruning. */
export type InboxStatus = 'pending' | 'done' | 'failed' | 'ignored';

/** A row to append. */
export interface InboxEntry {
  /** Defaults to `'update'`. */
  kind?: InboxKind;
  /** Unique per event: a second entry with the same key is ignored (see `dedupeKey()` in src/inbox/keys.ts). */
  dedupeKey: string;
  /** The conversation the event belongs to; null when it belongs to none. */
  conversationKey?: string | null;
  /** The update's `update_type`, for updates. */
  updateType?: string | null;
  /** The event as JSON text, exactly as received. */
  payload: string;
  /** Arrival time in ms; defaults to now. */
  receivedAt?: number;
}

/** What happened to one appended entry. */
export interface AppendResult {
  /** True when the entry is new; false for a duplicate, which was ignored. */
  inserted: boolean;
  /** The new row's id (arrival order), or null for a duplicate. */
  id: number | null;
}

/** A stored row. */
export interface InboxRow {
  id: number;
  kind: InboxKind;
  dedupeKey: string;
  conversationKey: string | null;
  updateType: string | null;
  payload: string;
  receivedAt: number;
  status: InboxStatus;
  attempts: number;
  error: string | null;
  processedAt: number | null;
}

/** An inbox row as the engine reads it to handle it. */
export interface InboxEvent {
  id: number;
  kind: string;
  conversationKey: string | null;
  payload: string;
  receivedAt: number;
}

/** An inbox row as support reads it: the event and what became of it. */
export interface InboxHistoryRow extends InboxEvent {
  dedupeKey: string;
  updateType: string | null;
  attempts: number;
  status: 'pending' | 'done' | 'failed' | 'ignored';
  error: string | null;
  processedAt: number | null;
}

/** A timer as stored. */
export interface TimerRow {
  id: number;
  conversationKey: string;
  name: string;
  dueAt: number;
  fireAt: number;
  stepInstance: number;
  armedRevision: number;
  status: 'armed' | 'fired' | 'cancelled' | 'discarded' | 'expired';
  reason: string | null;
  armedAt: number;
  settledAt: number | null;
}

/** A timer to arm: the step instance and revision that arm it, its absolute deadline, and when. */
export interface TimerToArm {
  conversationKey: string;
  name: string;
  dueAt: number;
  stepInstance: number;
  revision: number;
  now: number;
}

/** A stored update: its JSON text and when it was received (ms). */
export interface StoredUpdate {
  payload: string;
  at: number;
  /** `update`, or `event` (an external event: its conversation is kept, its payload is a StoredEvent). */
  kind: string;
  conversationKey: string | null;
}

/** A settled outbox call, as recorded. */
export interface SettledCall {
  op: string;
  kind: string;
  args: string;
  result: string | null;
  status: string;
  error: string | null;
  at: number;
}

/** An outbox row as the transcript harness reports it. */
export interface OutboxEntry {
  id: number;
  conversationKey: string;
  revision: number;
  kind: string;
  op: string;
  args: string;
  status: string;
  error: string | null;
}

/** Everything a recording is built from (testing/recording-from-db.ts), from either store. */
export interface HistoryData {
  updates: StoredUpdate[];
  settledCalls: SettledCall[];
  firstKeptUpdate: Map<string, number>;
  sessionStarts: Map<string, number>;
}

/** A flow version as recorded. */
export interface FlowVersionRow {
  flowId: string;
  version: string;
  firstLoadedAt: number;
  lastLoadedAt: number;
}

/** A flow version's stored source (FlowDefinition.source). */
export interface FlowVersionSource {
  flowId: string;
  version: string;
  source: string;
}

/**
 * One line of the log. `enter`: the session entered `step` (leaving the step before); `finish`: it entered
 * an end step and finished there; `retry`: the step refused `n` answers; `stop`: the session was stopped;
 * `fail`: the flow failed at run time there; `unrecognised`: nothing at the step took a text the person
 * typed, `sample` its first 200 characters (null when the config's `funnel.samples` is false).
 */
export interface StepLogEntry {
  conversationKey: string;
  stepInstance: number;
  sessionRevision: number;
  flowId: string;
  flowVersion: string;
  step: string;
  event: 'enter' | 'finish' | 'retry' | 'stop' | 'fail' | 'unrecognised';
  n: number;
  at: number;
  sample?: string | null;
}

/** A line as the funnel reads it, with whether its session is still the conversation's running one. */
export interface StepLogRow extends Omit<StepLogEntry, 'flowVersion'> {
  sessionActive: boolean;
}

/** What to do with timers that came due while the process was not running. */
export interface TimerGrace {
  /** Timers overdue by at most this much at start fire as usual (default 60 000 ms). */
  toleranceMs?: number;
  /** Timers overdue by more than this at start expire without firing (default 6 h). */
  maxLateMs?: number;
  /** The remaining overdue timers fire spread out, at most this many per second (default 10). */
  perSecond?: number;
}

/** What the grace rule did at start. */
export interface GraceReport {
  /** Overdue timers moved to a later firing time, spread out. */
  postponed: number;
  /** Timers too old to fire. */
  expired: number;
}

/** A `handoff` step of a flow: where its sessions wait for an operator. */
export interface HandoffStepRef {
  flowId: string;
  step: string;
}
