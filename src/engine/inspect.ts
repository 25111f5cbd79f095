/**
 * Sessions as support sees them: which conversations exist, where one stands (step, context, timers,
 * recent calls), what happened to it (its events from the inbox, each with its outcome), and a way to end
 * a session that is stuck (for instance pinned to a flow version nobody loads any more); the playground's
 * clock and jumps too. Written once over the store's support port (store/ports/support.ts): answers at
 * once on SQLite, promises on PostgreSQL.
 */
import { BotflowError } from '../errors/index.ts';
import type { InboxHistoryRow } from '../store/engine-inbox.ts';
import type { Answer } from '../store/ports/engine.ts';
import { andThen, type MaybePromise } from '../store/ports/index.ts';
import type { OutboxRow } from '../store/ports/outbox.ts';
import type { ConversationRows, SupportPort } from '../store/ports/support.ts';
import type { SessionListQuery, SessionRow, SessionSummary } from '../store/sessions.ts';
import type { StepLogRow } from '../store/step-log.ts';
import { type PlanRow, planFlowChange } from './flows-plan.ts';
import { type Jump, jumpToStep } from './jump.ts';
import type { FlowDefinition } from './step/contract.ts';
import { StepError } from './step/step.ts';

/** One conversation in a listing. */
export interface SessionListing extends Omit<SessionSummary, 'stateValue'> {
  /** The XState state value: the step the conversation is in. */
  step: unknown;
}

/** One conversation in detail. */
export interface SessionDetail extends SessionListing {
  context: unknown;
  /** The stored XState snapshot. */
  snapshot: unknown;
  /** Timers armed now. */
  timers: { id: number; name: string; dueAt: number; fireAt: number }[];
  /** The latest calls of this conversation, newest first. */
  calls: {
    id: number;
    op: string;
    status: string;
    attempts: number;
    error: string | null;
    createdAt: number;
  }[];
  /** The latest tasks this conversation started, newest first: running, waiting to retry, or ended. */
  tasks: {
    id: number;
    name: string;
    status: string;
    attempts: number;
    input: unknown;
    result?: unknown;
    error?: unknown;
    createdAt: number;
    finishedAt: number | null;
  }[];
}

/** One event of a conversation's history. */
export interface HistoryEntry {
  inboxId: number;
  kind: string;
  updateType: string | null;
  status: string;
  /** Why it failed or was ignored. */
  error: string | null;
  receivedAt: number;
  processedAt: number | null;
  payload: unknown;
}

/**
 * The support API of an engine (`engine.sessions`), the same on both databases: answers at once on SQLite
 * (`Sync`), promises on PostgreSQL.
 */
export interface SessionInspector<Sync extends boolean = true> {
  /** Conversations, most recently active first. Page with `updatedBefore` = the last row's `updatedAt`. */
  list(query?: SessionListQuery): Answer<Sync, SessionListing[]>;
  /** One conversation's current step, context, armed timers and recent calls. */
  get(conversationKey: string): Answer<Sync, SessionDetail | undefined>;
  /** A conversation's events, newest first, with what became of each. Page with `beforeId`. */
  history(
    conversationKey: string,
    options?: { limit?: number; beforeId?: number },
  ): Answer<Sync, HistoryEntry[]>;
  /**
   * Ends a running session by hand: status `stopped`, timers cancelled, unsent calls dropped with `reason`.
   * The next trigger starts a fresh session. False when no session was running.
   */
  end(conversationKey: string, reason?: string): Answer<Sync, boolean>;
  /** Calls that failed for good (dead letters), newest first: `botflow outbox retry` re-drives them. */
  deadLetters(limit?: number): Answer<Sync, DeadLetter[]>;
  /** Puts dead letters back in line (all without `ids`), sent in their conversation's order; how many. */
  retryDeadLetters(ids?: readonly number[]): Answer<Sync, number>;
  /** Gives up on dead letters for good (all without `ids`); how many. */
  dropDeadLetters(ids?: readonly number[]): Answer<Sync, number>;
  /**
   * Makes the conversation's armed timers due `ms` sooner, as if that much time had passed for it (the
   * playground's clock); those now due fire at once. Returns how many timers moved.
   */
  advanceTimers(conversationKey: string, ms: number): Answer<Sync, number>;
  /** Makes one armed timer of the conversation fire now; false when it is not armed (fired, cancelled). */
  fireTimerNow(conversationKey: string, timerId: number): Answer<Sync, boolean>;
  /**
   * Puts the conversation on a step of a flow with these variables and enters it (its prompt is sent, its
   * reminders armed), ending whatever ran before: the playground's "start here". Throws for an unknown
   * flow or step.
   */
  jump(jump: Omit<Jump, 'flow'> & { flowId: string }): Answer<Sync, void>;
  /**
   * The funnel's step log of a flow (or all) since `since`, read as it is consumed (runtime/funnel.ts
   * tallies it): on SQLite consume it at once, without awaiting in between.
   */
  stepLog(query?: {
    flowId?: string;
    since?: number;
  }): Sync extends true ? Iterable<StepLogRow> : AsyncIterable<StepLogRow>;
  /**
   * The running conversations against the flows loaded now (flows-plan.ts): on the latest version, moved
   * by a migrate: block at their next event, staying on their version, or stranded.
   */
  plan(): Answer<Sync, PlanRow[]>;
}

/** A call that failed for good. */
export interface DeadLetter {
  outboxId: number;
  conversationKey: string;
  op: string;
  attempts: number;
  error: string | null;
  failedAt: number | null;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function listing(row: SessionSummary | SessionRow): SessionListing {
  const { stateValue, ...rest } = row as SessionRow;
  const { snapshot: _snapshot, ...summary } = rest;
  return { ...summary, step: parse(stateValue) };
}

/** What the support API needs of the engine around it. */
export interface InspectorHooks {
  /** The engine's clock: stamps manual ends, moved timers and jumps. */
  now(): number;
  /** A session was changed by hand (ended, jumped): its cached copy is stale. */
  onEnded?(conversationKey: string): void;
  /** Dead letters were put back in line (the dispatcher sends them). */
  onRedriven?(): void;
  /** Timers were moved (the engine fires those now due). */
  onTimersMoved?(): void;
  /** The latest loaded version of a flow, for jumps. */
  flow?(flowId: string): FlowDefinition | undefined;
  /** A jump was queued (the engine processes it). */
  onJumped?(): void;
  /** The latest version of every flow, and how a stored version is rebuilt: for plan(). */
  currentFlows?(): FlowDefinition[];
  rebuildFlow?: ((source: string) => FlowDefinition) | undefined;
}

/** `fn(value)` now for a value, later for a promise, typed as the store answers. */
function map<Sync extends boolean, T, R>(value: Answer<Sync, T>, fn: (value: T) => R): Answer<Sync, R> {
  return andThen(value as MaybePromise<T>, fn) as Answer<Sync, R>;
}

/** Builds the support API over a store's support port. */
export function sessionInspector<Sync extends boolean>(
  support: SupportPort<Sync>,
  hooks: InspectorHooks,
): SessionInspector<Sync> {
  const { now, onEnded, onRedriven, onTimersMoved } = hooks;
  return {
    stepLog: (query = {}) => support.stepLog(query),
    plan: () => flowsPlan(support, hooks),
    deadLetters: (limit = 100) => map(support.deadLetters(limit), (rows) => rows.map(deadLetter)),
    retryDeadLetters: (ids) =>
      map(support.retryDeadLetters(ids), (changed) => {
        if (changed > 0) onRedriven?.();
        return changed;
      }),
    dropDeadLetters: (ids) => support.dropDeadLetters(ids, now()),
    advanceTimers: (conversationKey, ms) =>
      map(support.bringTimersForward(conversationKey, Math.max(0, ms), now()), (moved) => {
        if (moved > 0) onTimersMoved?.();
        return moved;
      }),
    jump({ flowId, ...rest }) {
      const flow = hooks.flow?.(flowId);
      if (!flow) throw new StepError(`no flow "${flowId}" is loaded`);
      return map(jumpToStep(support, { ...rest, flow }, now()), () => {
        onEnded?.(rest.conversationKey);
        hooks.onJumped?.();
      });
    },
    fireTimerNow: (conversationKey, timerId) =>
      map(support.fireTimerNow(conversationKey, timerId, now()), (fired) => {
        if (fired) onTimersMoved?.();
        return fired;
      }),
    list: (query = {}) => map(support.listSessions(query), (rows) => rows.map(listing)),
    get: (key) => map(support.conversation(key, 20), (found) => (found ? sessionDetail(found) : undefined)),
    history: (key, options = {}) =>
      map(support.history(key, options.limit ?? 50, options.beforeId), (rows) => rows.map(historyEntry)),
    end: (key, reason = 'ended by support') =>
      map(support.endSession(key, reason, now()), (ended) => {
        if (ended) onEnded?.(key);
        return ended;
      }),
  };
}

/** The running conversations against the flows loaded now (SessionInspector.plan). */
function flowsPlan<Sync extends boolean>(
  support: SupportPort<Sync>,
  hooks: InspectorHooks,
): Answer<Sync, PlanRow[]> {
  return map(
    support.planSources(new Map((hooks.currentFlows?.() ?? []).map((f) => [f.id, f.version]))),
    (sources) =>
      planFlowChange({
        flows: hooks.currentFlows?.() ?? [],
        ...sources,
        rebuild: (source) => {
          if (!hooks.rebuildFlow)
            throw new BotflowError(
              'BOTFLOW_OPTIONS_INVALID',
              'no rebuildFlow was given to the engine: give createEngine one (createBot and botflow run do)',
            );
          return hooks.rebuildFlow(source);
        },
      }),
  );
}

function deadLetter(r: OutboxRow): DeadLetter {
  return {
    outboxId: r.id,
    conversationKey: r.conversationKey,
    op: r.op,
    attempts: r.attempts,
    error: r.error,
    failedAt: r.finishedAt,
  };
}

/** One conversation in detail, from its rows. */
function sessionDetail(found: ConversationRows): SessionDetail {
  const snapshot = parse(found.session.snapshot) as { context?: unknown };
  return {
    ...listing(found.session),
    context: snapshot?.context,
    snapshot,
    timers: found.timers.map((t) => ({ id: t.id, name: t.name, dueAt: t.dueAt, fireAt: t.fireAt })),
    calls: found.calls.map((c) => ({
      id: c.id,
      op: c.op,
      status: c.status,
      attempts: c.attempts,
      error: c.error,
      createdAt: c.createdAt,
    })),
    tasks: found.tasks.map((t) => ({
      id: t.id,
      name: t.name,
      status: t.status,
      attempts: t.attempts,
      input: parse(t.input),
      ...(t.result !== null ? { result: parse(t.result) } : {}),
      ...(t.error !== null ? { error: parse(t.error) } : {}),
      createdAt: t.createdAt,
      finishedAt: t.finishedAt,
    })),
  };
}

function historyEntry(r: InboxHistoryRow): HistoryEntry {
  return {
    inboxId: r.id,
    kind: r.kind,
    updateType: r.updateType,
    status: r.status,
    error: r.error,
    receivedAt: r.receivedAt,
    processedAt: r.processedAt,
    payload: parse(r.payload),
  };
}
