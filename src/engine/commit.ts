/**
 * Writing what a step decided: the session row (revision compare-and-swap), its outbox rows and its timer
 * changes. The caller runs these inside the transaction that also settles the inbox row, so a step is
 * committed whole or not at all.
 */
import type Database from 'better-sqlite3';
import { OutboxStore } from '../store/outbox.ts';
import { type SessionRow, SessionStore } from '../store/sessions.ts';
import { TimerStore } from '../store/timers.ts';
import type { EventMeta, FlowDefinition } from './contract.ts';
import type { PlannedCall } from './effects.ts';
import type { StepResult } from './step.ts';

/** The stores a step writes to, bound to one database. */
export class StepWriter {
  readonly sessions: SessionStore;
  readonly outbox: OutboxStore;
  readonly timers: TimerStore;

  constructor(db: Database.Database) {
    this.sessions = new SessionStore(db);
    this.outbox = new OutboxStore(db);
    this.timers = new TimerStore(db);
  }

  /**
   * Commits `result` for `conversationKey`. `prior` is the session row the step started from (undefined
   * for a first session); `started` says the step began a new session. `status` overrides the session
   * status (a person leaving stops it). Returns the new session row, or `prior` when the step was idle.
   */
  write(args: {
    conversationKey: string;
    prior: SessionRow | undefined;
    flow: FlowDefinition;
    result: StepResult;
    meta: EventMeta;
    started: boolean;
    now: number;
    status?: SessionRow['status'];
  }): SessionRow | undefined {
    const { conversationKey: key, prior, flow, result, meta, started, now } = args;
    if (result.idle && !started && prior) return prior;
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
    if (sameShape) this.sessions.advance(key, row, prior.revision);
    else this.sessions.save(row, prior?.revision);
    result.calls.forEach((call, seq) => {
      this.insertCall(key, result.revision, seq, call, now);
    });
    for (const change of result.timers) {
      if (change.kind === 'arm') {
        this.timers.arm({
          conversationKey: key,
          name: change.name,
          dueAt: change.dueAt,
          stepInstance: result.stepInstance,
          revision: result.revision,
          now,
        });
      } else {
        this.timers.cancel(key, change.name, 'cancelled by the flow', now);
      }
    }
    if (row.status !== 'active') {
      this.timers.settleAll(
        key,
        'discarded',
        `the session ${row.status === 'done' ? 'ended' : 'was stopped'}`,
        now,
      );
    } else if (result.stepChanged && prior) {
      this.timers.discardOtherSteps(key, result.stepInstance, 'the step that armed it was left', now);
    }
    return row;
  }

  /** Inserts one planned call as an outbox row; `idempotencyKey` overrides `<key>:<revision>:<seq>`. */
  insertCall(
    conversationKey: string,
    revision: number,
    seq: number,
    call: PlannedCall,
    now: number,
    idempotencyKey?: string,
  ): boolean {
    return this.outbox.insert({
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
    });
  }
}
