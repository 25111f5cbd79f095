/**
 * Applying a write plan on SQLite: `applyWrites` performs an event's writes (store/write-plan.ts) inside
 * the batch's transaction, through the stores of one connection.
 */
import type Database from 'better-sqlite3';
import { PersonWrites } from '../campaigns/person-writes.ts';
import { EngineInbox } from '../engine-inbox.ts';
import { OutboxStore } from '../outbox.ts';
import { SessionStore } from '../sessions.ts';
import { StepLogStore } from '../step-log.ts';
import { TaskStore } from '../tasks.ts';
import { TimerStore } from '../timers.ts';
import type { WriteOp } from '../write-plan.ts';

export { WRITE_OP_KINDS, type WriteOp } from '../write-plan.ts';

/** The stores writes are applied to, over one connection. */
export class WriteStores {
  readonly sessions: SessionStore;
  readonly outbox: OutboxStore;
  readonly timers: TimerStore;
  readonly inbox: EngineInbox;
  readonly tasks: TaskStore;
  readonly stepLog: StepLogStore;
  readonly people: PersonWrites;

  constructor(db: Database.Database) {
    this.people = new PersonWrites(db);
    this.tasks = new TaskStore(db);
    this.stepLog = new StepLogStore(db);
    this.sessions = new SessionStore(db);
    this.outbox = new OutboxStore(db);
    this.timers = new TimerStore(db);
    this.inbox = new EngineInbox(db);
  }

  /** Deletes, in small chunks, settled rows finished before `before` and step log lines before `logBefore`. */
  prune(
    before: number,
    logBefore: number,
  ): { outbox: number; timers: number; tasks: number; stepLog: number } {
    const all = (prune: () => number) => {
      let removed = 0;
      for (let n = prune(); n > 0; n = prune()) removed += n;
      return removed;
    };
    return {
      outbox: all(() => this.outbox.prune(before)),
      timers: all(() => this.timers.prune(before)),
      tasks: all(() => this.tasks.prune(before)),
      stepLog: all(() => this.stepLog.prune(logBefore)),
    };
  }
}

/**
 * Performs `ops` in order (inside the caller's transaction). Throws RevisionConflictError when a session
 * moved on meanwhile, or whatever SQLite throws. Returns how many unsent calls were dropped.
 */
export function applyWrites(stores: WriteStores, ops: readonly WriteOp[]): number {
  let dropped = 0;
  for (const op of ops) {
    switch (op.kind) {
      case 'session':
        if (op.sameShape) stores.sessions.advance(op.row.conversationKey, op.row, op.expected!);
        else stores.sessions.save(op.row, op.expected);
        break;
      case 'call':
        stores.outbox.insert(op.row);
        break;
      case 'arm':
        stores.timers.arm(op.timer);
        break;
      case 'cancel':
        stores.timers.cancel(op.key, op.name, op.reason, op.now);
        break;
      case 'discard':
        stores.timers.discardOtherSteps(op.key, op.stepInstance, op.reason, op.now);
        break;
      case 'settle-timers':
        stores.timers.settleAll(op.key, op.status, op.reason, op.now);
        break;
      case 'drop-calls':
        dropped += stores.outbox.dropPending(op.key, op.reason, op.now, op.keep);
        break;
      case 'settle':
        stores.inbox.settle(op.id, op.status, op.reason, op.key, op.now);
        break;
      case 'task':
        stores.tasks.insert(op.row);
        break;
      case 'cancel-task':
        stores.tasks.cancel(op.key, op.ref, op.reason, op.now);
        break;
      case 'cancel-tasks':
        stores.tasks.cancelAll(op.key, op.reason, op.now);
        break;
      case 'step-log':
        stores.stepLog.append(op.row);
        break;
      case 'tags':
      case 'left':
      case 'recipient':
        stores.people.apply(op);
        break;
      default:
        // Only a plan built outside the types gets here: refused, as botflow_apply_ops refuses it.
        throw new Error(`unknown write ${(op satisfies never as { kind?: unknown }).kind}`);
    }
  }
  return dropped;
}
