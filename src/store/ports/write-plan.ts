/**
 * The write plan as data: what one planned inbox event writes (`WriteOp[]`), a batch of them
 * (`PlannedWrites[]`) and how each event's writes went (`ApplyResult`). The contract of the two interpreters:
 * the TypeScript applier on SQLite (engine/commit: `applyWrites`, `BatchApplier`) and the PL/pgSQL function
 * `botflow_apply_batch` on PostgreSQL (postgres/commit.ts `applyBatch`, migrations/postgres). Both take
 * these types, and test/store/write-plan-conformance.test.ts applies the same batches on both and compares.
 */
import type { NewOutboxRow } from './outbox.ts';
import type { SessionRow, StepLogEntry, TimerToArm } from './rows.ts';
import type { NewTaskRow } from './tasks.ts';

/** One write of a planned event. */
export type WriteOp =
  /** The session row; `expected` is the revision it must still have (undefined: it must not exist yet). */
  | { kind: 'session'; row: SessionRow; expected: number | undefined; sameShape: boolean }
  | { kind: 'call'; row: NewOutboxRow }
  | { kind: 'arm'; timer: TimerToArm }
  | { kind: 'cancel'; key: string; name: string; reason: string; now: number }
  | { kind: 'discard'; key: string; stepInstance: number; reason: string; now: number }
  | { kind: 'settle-timers'; key: string; status: 'cancelled' | 'discarded'; reason: string; now: number }
  /** Unsent calls of `key` are dropped, but for the operations in `keep` (a callback answer must still go). */
  | { kind: 'drop-calls'; key: string; reason: string; now: number; keep?: string[] }
  | { kind: 'task'; row: NewTaskRow }
  | { kind: 'cancel-task'; key: string; ref: string; reason: string; now: number }
  | { kind: 'cancel-tasks'; key: string; reason: string; now: number }
  /** A line of the funnel's step log: a step entered or finished at, answers refused, a session stopped. */
  | { kind: 'step-log'; row: StepLogEntry }
  /** Tags a flow set on (`add`) or took off (`remove`) the person of conversation `key` (docs/campaigns.md). */
  | { kind: 'tags'; key: string; add: string[]; remove: string[]; at: number }
  /** The person of `key` stopped the bot or removed the dialog: campaigns leave them out. */
  | { kind: 'left'; key: string; reason: string; at: number }
  /** How a released campaign recipient's event went: the flow started (`sent`), or why not. */
  | RecipientWrite
  | {
      kind: 'settle';
      id: number;
      status: 'done' | 'ignored' | 'failed';
      reason: string | null;
      key: string | null;
      now: number;
    };

/**
 * Every kind of write, listed once: both interpreters handle each, and the conformance suite applies a batch
 * of each. Adding a kind to the union without listing it here does not compile.
 */
export const WRITE_OP_KINDS = [
  'session',
  'call',
  'arm',
  'cancel',
  'discard',
  'settle-timers',
  'drop-calls',
  'task',
  'cancel-task',
  'cancel-tasks',
  'step-log',
  'tags',
  'left',
  'recipient',
  'settle',
] as const satisfies readonly WriteOp['kind'][];

/** Fails to compile when a kind of the union is missing from WRITE_OP_KINDS. */
type Unlisted = Exclude<WriteOp['kind'], (typeof WRITE_OP_KINDS)[number]>;
const everyKindListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyKindListed;

/** The write settling a released campaign recipient. */
export interface RecipientWrite {
  kind: 'recipient';
  campaignId: string;
  key: string;
  status: 'sent' | 'skipped';
  reason: string | null;
  at: number;
}

/** A planned event's writes as the appliers take them (plain data: it crosses to the writer thread, or to PL/pgSQL as JSON). */
export interface PlannedWrites {
  inboxId: number;
  conversationKey: string | null;
  /** The event was handled (not ignored or failed): it is settled `done` with the batch. */
  done: boolean;
  ops: WriteOp[];
}

/** How one event's writes went. */
export type ApplyResult =
  | { status: 'applied'; dropped: number }
  | { status: 'held' }
  | { status: 'failed'; reason: string; error: unknown };
