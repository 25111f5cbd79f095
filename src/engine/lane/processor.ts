/**
 * Planning batches and settling their results: the lane's side of the batch loop (lane/batches.ts), the
 * same over either store.
 */
import type { InboxEvent } from '../../store/engine-inbox.ts';
import type { HandoffStepRef } from '../../store/handoff-queue.ts';
import type { InboxEntry } from '../../store/inbox.ts';
import type { ApplyResult, PlannedWrites } from '../../store/write-plan.ts';
import { handoffSteps, waitingIn } from './handoff-queue.ts';
import { operatorsChats, operatorUpdate } from './operators.ts';
import { type EventOutcome, type EventPlan, EventPlanner, type PlannerOptions } from './planner.ts';
import type { CachedSession, SessionCache } from './session-cache.ts';

export type { EventOutcome } from './planner.ts';

/** The writes of `plans`, as the applier (here or in the writer thread) takes them. */
export function writesOf(plans: readonly EventPlan[]): PlannedWrites[] {
  return plans.map((plan) => ({
    inboxId: plan.row.id,
    conversationKey: plan.outcome.conversationKey,
    done: plan.outcome.status === 'done',
    ops: plan.ops,
  }));
}

/** What planning needs: the planner's needs but the session lookup, which goes through the cache. */
export interface BatchPlannerOptions extends Omit<PlannerOptions, 'session' | 'operator'> {
  /** Sessions this process committed, read before the database. */
  cache: SessionCache;
}

/**
 * Plans batches of inbox events on top of each other (a conversation's next event starts from the session
 * its previous one left, committed or not) and takes the results of applying them. Either store applies.
 */
export class BatchPlanner {
  readonly #cache: SessionCache;
  readonly #logger: PlannerOptions['logger'];
  readonly #planner: EventPlanner;
  readonly #operator: (row: InboxEvent, now: number) => ReturnType<typeof operatorUpdate>;
  /** Sessions planned but not committed yet: later events of their conversations start from them. */
  readonly #planned = new Map<string, CachedSession>();
  readonly #flows: BatchPlannerOptions['flows'];
  readonly #load: BatchPlannerOptions['load'];
  /** Untaken handoff requests by operators' chat, for the batch being planned (lane/handoff-queue.ts). */
  #waiting: Record<string, number> | undefined;

  constructor(options: BatchPlannerOptions) {
    this.#cache = options.cache;
    this.#flows = options.flows;
    this.#load = options.load;
    this.#logger = options.logger;
    this.#operator = (row, now) =>
      operatorUpdate(row, operatorsChats(options.flows.current()), options.signer, now);
    this.#planner = new EventPlanner({
      ...options,
      session: (key) => this.#planned.get(key) ?? options.cache.get(key),
      operator: this.#operator,
      handoffWaiting: () => this.#waiting,
    });
  }

  /** The flows' `handoff` steps by operators' chat: the store counts the requests waiting there. */
  handoffSteps(): Map<number, HandoffStepRef[]> {
    return handoffSteps(this.#flows.current());
  }

  /**
   * The events updates of operators' chats among `rows` become (lane/operators.ts): stored before the rows
   * are planned, keyed by their update, so a crash in between stores nothing twice.
   */
  handOver(rows: readonly InboxEvent[], now: number): InboxEntry[] {
    return rows.flatMap((row) => {
      const outcome = this.#operator(row, now);
      return outcome && 'entry' in outcome ? [outcome.entry] : [];
    });
  }

  /**
   * Plans `rows` in order, each on the session its predecessor in the conversation left; `waiting`: the
   * handoff requests nobody took, by operators' chat, as the store counted them before the batch.
   */
  plan(rows: readonly InboxEvent[], waiting?: Record<string, number>): EventPlan[] {
    this.#waiting = waiting ? { ...waiting } : undefined;
    return rows.map((row) => {
      const before = this.#waiting ? this.#waitingIn(row.conversationKey) : undefined;
      const plan = this.#planner.plan(row);
      const key = plan.outcome.conversationKey;
      if (plan.written && key !== null) this.#planned.set(key, plan.written);
      if (this.#waiting && plan.written) this.#moved(before, this.#waitingIn(key));
      return plan;
    });
  }

  /** The operators' chat the conversation `key` waits in, untaken, as planned so far. */
  #waitingIn(key: string | null): number | undefined {
    if (key === null) return undefined;
    const known = this.#planned.get(key) ?? this.#cache.get(key);
    const row = known ? undefined : this.#load(key);
    return waitingIn(known ?? (row ? { row, armedTimers: undefined } : undefined), this.#flows.current());
  }

  /** A session that started or stopped waiting moves its chat's count (events later in the batch see it). */
  #moved(before: number | undefined, after: number | undefined): void {
    if (before === after || !this.#waiting) return;
    if (before !== undefined) this.#waiting[before] = Math.max(0, (this.#waiting[before] ?? 1) - 1);
    if (after !== undefined) this.#waiting[after] = (this.#waiting[after] ?? 0) + 1;
  }

  /**
   * Takes the results of applying `plans`: committed sessions go to the cache, failures are logged, held
   * events are left for a later batch. Returns the outcomes of the events that were applied or failed.
   */
  settle(plans: readonly EventPlan[], results: readonly ApplyResult[]): EventOutcome[] {
    const outcomes: EventOutcome[] = [];
    plans.forEach((plan, i) => {
      const result = results[i]!;
      const key = plan.outcome.conversationKey;
      if (key !== null && plan.written && this.#planned.get(key) === plan.written) this.#planned.delete(key);
      if (result.status === 'held') {
        if (key !== null) this.#cache.delete(key); // possibly stale (written by another process)
        this.#logger?.info(
          { conversation: key, inboxId: plan.row.id },
          'event held back: its session moved on meanwhile, or an earlier event of it failed; planned again',
        );
        return;
      }
      if (result.status === 'failed') {
        if (key !== null) this.#cache.delete(key);
        outcomes.push(this.#planner.failed(plan.row, key, result.error, result.reason).outcome);
        return;
      }
      if (key !== null && plan.written) this.#cache.set(key, plan.written);
      if (result.dropped > 0) {
        const why = plan.ops.find((op) => op.kind === 'drop-calls')?.reason;
        this.#logger?.info({ conversation: key, dropped: result.dropped }, `unsent calls dropped: ${why}`);
      }
      outcomes.push(plan.outcome);
    });
    return outcomes;
  }

  /** Forgets every planned, uncommitted session (after a batch could not be applied at all). */
  forgetPlanned(): void {
    this.#planned.clear();
  }
}
