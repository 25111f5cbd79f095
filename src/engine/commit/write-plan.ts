/**
 * What a step writes, as data: planning an event records its writes (the session row with its revision
 * compare-and-swap, outbox rows, timer changes, dropped calls, the step log, tasks) without touching the
 * database; the store applies them inside the batch's transaction (store/sqlite/commit.ts on SQLite, the
 * `botflow_apply_batch` function on PostgreSQL, held equal by test/store/write-plan-conformance.test.ts).
 * Keeping the two apart lets a whole batch be planned first and committed in one go, and a failed commit be
 * retried event by event from the same plans.
 */
import type { SessionRow } from '../../store/sessions.ts';
import type { StepLogEntry } from '../../store/step-log.ts';
import type { WriteOp } from '../../store/write-plan.ts';
import type { EventMeta, FlowDefinition } from '../step/contract.ts';
import type { PlannedCall } from '../step/effects.ts';
import { FAILED_STATE } from '../step/failure.ts';
import { type StepResult, stepName } from '../step/step.ts';

export { WRITE_OP_KINDS, type WriteOp } from '../../store/write-plan.ts';

/** A written session as the cache keeps it: the row, and which timers it has armed when that is known. */
export interface WrittenSession {
  row: SessionRow;
  /** Names of the conversation's armed timers; undefined when unknown (not every write path is seen). */
  armedTimers: ReadonlySet<string> | undefined;
}

function leftBecause(started: boolean, status: SessionRow['status']): string {
  if (started) return 'another flow started';
  if (status === 'done') return 'the session ended';
  return 'the step that started it was left';
}

/** Records the writes of one event at a time. */
export class WritePlan {
  ops: WriteOp[] = [];
  /** Whether unrecognised texts are kept as samples (config `funnel.samples`), or only counted. */
  readonly #samples: boolean;

  constructor(options: { samples?: boolean | undefined } = {}) {
    this.#samples = options.samples ?? true;
  }

  /** Starts recording a new event's writes; returns the previous event's. */
  take(): WriteOp[] {
    const ops = this.ops;
    this.ops = [];
    return ops;
  }

  /**
   * Records `result` for `conversationKey`. `prior` is the session the step started from (undefined for a
   * first session) with its known armed timers; `started` says the step began a new session; `status`
   * overrides the session status (a person leaving stops it). Returns the session as written, or `prior`
   * when the step was idle (nothing to write).
   */
  write(args: {
    conversationKey: string;
    prior: WrittenSession | undefined;
    flow: FlowDefinition;
    result: StepResult;
    meta: EventMeta;
    started: boolean;
    now: number;
    status?: SessionRow['status'];
  }): WrittenSession | undefined {
    const { conversationKey: key, flow, result, meta, started, now } = args;
    const prior = args.prior?.row;
    if (result.idle && !started && prior) return args.prior;
    const row: SessionRow = {
      conversationKey: key,
      flowId: flow.id,
      flowVersion: flow.version,
      status: args.status ?? (result.status === 'done' ? 'done' : 'active'),
      stateValue: JSON.stringify(result.snapshot.value),
      snapshot: JSON.stringify(result.snapshot),
      revision: result.revision,
      stepInstance: result.stepInstance,
      startedRevision: started || !prior ? result.revision : prior.startedRevision,
      chatId: meta.chatId ?? prior?.chatId ?? null,
      userId: meta.userId ?? prior?.userId ?? null,
      locale: meta.locale ?? prior?.locale ?? null,
      startedAt: started || !prior ? now : prior.startedAt,
      updatedAt: now,
    };
    const sameShape =
      prior !== undefined &&
      !started &&
      prior.flowId === row.flowId &&
      prior.flowVersion === row.flowVersion &&
      prior.status === row.status &&
      prior.chatId === row.chatId &&
      prior.userId === row.userId &&
      prior.locale === row.locale;
    this.ops.push({ kind: 'session', row, expected: prior?.revision, sameShape });
    this.#stepLog(row, prior, result, started || !prior);
    if (result.tags) this.ops.push({ kind: 'tags', key, ...result.tags, at: now });
    result.calls.forEach((call, seq) => {
      this.call(key, result.revision, seq, call, now);
    });
    // Leaving a step cancels the tasks it started (those of the step entered now are written after them).
    // A stopped session's tasks are cancelled by whoever stopped it, with their reason.
    const left = started || result.stepChanged || row.status === 'done';
    if (args.prior?.row.status === 'active' && left && row.status !== 'stopped')
      this.ops.push({ kind: 'cancel-tasks', key, reason: leftBecause(started, row.status), now });
    if (result.tasks.length > 0) this.#tasks(key, row, result, now);
    // Which timers stay armed, when the prior set is known (or made irrelevant by a discard).
    // A conversation that never had a session has no timers.
    let armed: Set<string> | undefined = !args.prior
      ? new Set()
      : args.prior.armedTimers
        ? new Set(args.prior.armedTimers)
        : undefined;
    if (row.status !== 'active') {
      this.settleTimers(
        key,
        'discarded',
        `the session ${row.status === 'done' ? 'ended' : 'was stopped'}`,
        now,
      );
      armed = new Set();
    } else if (result.stepChanged) {
      // A known empty set needs no discard: the common case of a step that arms nothing being left.
      if (armed === undefined || armed.size > 0) {
        this.ops.push({
          kind: 'discard',
          key,
          stepInstance: result.stepInstance,
          reason: 'the step that armed it was left',
          now,
        });
      }
      armed = new Set();
    }
    for (const change of result.timers) {
      if (change.kind === 'arm') {
        if (row.status !== 'active') continue;
        this.ops.push({
          kind: 'arm',
          timer: {
            conversationKey: key,
            name: change.name,
            dueAt: change.dueAt,
            stepInstance: result.stepInstance,
            revision: result.revision,
            now,
          },
        });
        armed?.add(change.name);
      } else {
        this.ops.push({ kind: 'cancel', key, name: change.name, reason: 'cancelled by the flow', now });
        armed?.delete(change.name);
      }
    }
    return { row, armedTimers: armed };
  }

  /**
   * Records the funnel's step log: the step entered (or finished at), the answers the step refused, the
   * session stopped. Most events write one line (a step entered) or none (an event at the same step).
   */
  #stepLog(row: SessionRow, prior: SessionRow | undefined, result: StepResult, started: boolean): void {
    const line = (event: StepLogEntry['event'], stepInstance: number, step: string, n = 1, sample?: string) =>
      this.ops.push({
        kind: 'step-log',
        row: {
          conversationKey: row.conversationKey,
          stepInstance,
          sessionRevision: row.startedRevision,
          flowId: row.flowId,
          flowVersion: row.flowVersion,
          step,
          event,
          n,
          at: row.updatedAt,
          ...(sample !== undefined ? { sample: this.#samples ? sample : null } : {}),
        },
      });
    // Texts nothing took count at the step the person typed them at (the one the event found).
    if (result.unrecognised.length > 0) {
      const at =
        !started && prior
          ? { instance: prior.stepInstance, step: stepName(JSON.parse(prior.stateValue)) }
          : { instance: row.stepInstance, step: stepName(result.snapshot.value) };
      for (const text of result.unrecognised) line('unrecognised', at.instance, at.step, 1, text);
    }
    if (result.failure)
      line('fail', row.stepInstance, result.failure.step ?? stepName(result.snapshot.value));
    if (stepName(result.snapshot.value) === FAILED_STATE) {
      // Ended by the apology after a failure: the session stopped where the person was, at no step of its own.
      if (prior && !started) line('stop', prior.stepInstance, stepName(JSON.parse(prior.stateValue)));
      return;
    }
    if (started || result.stepChanged) {
      // Answers refused by the event that left a step (its retries ran out) count for the step left.
      if (!started && prior && result.rejected > 0)
        line('retry', prior.stepInstance, stepName(JSON.parse(prior.stateValue)), result.rejected);
      const step = stepName(result.snapshot.value);
      // Steps passed through on the way (a branch, a message that moves on) were reached too.
      for (const passed of result.passed) line('enter', row.stepInstance, passed);
      line(row.status === 'done' ? 'finish' : 'enter', row.stepInstance, step);
      if (row.status === 'stopped') line('stop', row.stepInstance, step);
      else if (started && result.rejected > 0) line('retry', row.stepInstance, step, result.rejected);
      return;
    }
    if (result.rejected > 0)
      line('retry', row.stepInstance, stepName(result.snapshot.value), result.rejected);
    if (prior?.status === 'active' && row.status !== 'active')
      line(row.status === 'done' ? 'finish' : 'stop', row.stepInstance, stepName(result.snapshot.value));
  }

  /** Records the step's task starts (task outbox rows) and cancellations. */
  #tasks(key: string, row: SessionRow, result: StepResult, now: number): void {
    const context = result.snapshot.context as { vars?: unknown; locale?: unknown } | undefined;
    const vars = context && typeof context.vars === 'object' ? context.vars : (context ?? {});
    const locale = typeof context?.locale === 'string' ? context.locale : (row.locale ?? undefined);
    const scope = JSON.stringify({ vars, ...(locale ? { locale } : {}) });
    result.tasks.forEach((task, seq) => {
      if (task.kind === 'cancel') {
        this.ops.push({ kind: 'cancel-task', key, ref: task.ref, reason: 'cancelled by the flow', now });
        return;
      }
      if (row.status !== 'active') return; // a session that ended has nobody to hear the result
      this.ops.push({
        kind: 'task',
        row: {
          conversationKey: key,
          revision: result.revision,
          stepInstance: result.stepInstance,
          name: task.task,
          ref: task.ref,
          input: JSON.stringify(task.input ?? null),
          scope,
          policy: JSON.stringify(task.policy),
          chatId: task.chatId ?? null,
          idempotencyKey: `task:${key}:${result.revision}:${seq}`,
          createdAt: now,
        },
      });
    });
  }

  /** Records one planned call as an outbox row; `idempotencyKey` overrides `<key>:<revision>:<seq>`. */
  call(
    conversationKey: string,
    revision: number,
    seq: number,
    call: PlannedCall,
    now: number,
    idempotencyKey?: string,
  ): void {
    this.ops.push({
      kind: 'call',
      row: {
        conversationKey,
        revision,
        seq,
        orderKey: call.orderKey,
        chatId: call.chatId ?? null,
        kind: call.kind,
        op: call.op,
        args: JSON.stringify(call.args),
        ref: call.ref ?? null,
        priority: call.priority,
        createdAt: now,
        ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      },
    });
  }

  /** Records settling every armed timer of the conversation (session ended, person left). */
  settleTimers(key: string, status: 'cancelled' | 'discarded', reason: string, now: number): void {
    this.ops.push({ kind: 'settle-timers', key, status, reason, now });
  }

  /** Records cancelling the conversation's open tasks (their signals abort; no result is delivered). */
  cancelTasks(key: string, reason: string, now: number): void {
    this.ops.push({ kind: 'cancel-tasks', key, reason, now });
  }

  /** Records dropping the conversation's unsent calls, but for those of the operations in `keep`. */
  dropCalls(key: string, reason: string, now: number, keep?: string[]): void {
    this.ops.push({ kind: 'drop-calls', key, reason, now, ...(keep?.length ? { keep } : {}) });
  }

  /** Records settling the inbox row `id` (done rows are normally settled per batch instead). */
  settle(
    id: number,
    status: 'done' | 'ignored' | 'failed',
    reason: string | null,
    key: string | null,
    now: number,
  ): void {
    this.ops.push({ kind: 'settle', id, status, reason, key, now });
  }
}
