/**
 * Committing a planned batch on PostgreSQL: the batch's writes (`PlannedWrites[]`, the same plan the SQLite
 * applier takes, each event with its partition) go to the database function `botflow_apply_batch` (migrations/postgres),
 * which writes them in one transaction and one round trip: every event at once, or, when that fails, one
 * subtransaction per event (a revision conflict holds the event, another error fails it). The owner's
 * partition leases are checked (and share-locked) in the same transaction: a process that lost a partition
 * writes nothing more in it.
 */
import type pg from 'pg';
import { BotflowError } from '../../errors/index.ts';
import type { ApplyResult, PlannedWrites } from '../ports/write-plan.ts';
import { partitionOf } from './database.ts';

/** This process no longer holds a lease the batch needs: nothing of it was written. */
export class LeaseLostError extends BotflowError {
  override name = 'LeaseLostError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_LEASE_LOST', message, options);
  }
}

/** Errors of the environment, not of an event: the batch is planned again later. */
export function isEnvironmentalPg(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string') return true; // a lost connection has no SQLSTATE
  return /^(08|40|53|55|57|58|BF002)/.test(code);
}

/** What the function answers for one event (a failure's reason, without an Error object). */
type Raw = { status: 'applied'; dropped: number } | { status: 'held' } | { status: 'failed'; reason: string };

/** Applies `batch` for `owner` (null: no lease check, a single process) in one transaction. */
export async function applyBatch(
  pool: pg.Pool,
  owner: string | null,
  batch: readonly PlannedWrites[],
  now: number,
): Promise<ApplyResult[]> {
  if (batch.length === 0) return [];
  const events = batch.map((writes) => ({ ...writes, partition: partitionOf(writes.conversationKey) }));
  const partitions = [...new Set(events.map((e) => e.partition))];
  const json = JSON.stringify(events);
  const run = async (careful: boolean): Promise<Raw[]> => {
    const { rows } = await pool.query<{ r: Raw[] }>(
      'SELECT botflow_apply_batch($1, $2::int[], $3::jsonb, $4, $5) AS r',
      [owner, partitions, json, careful, now],
    );
    return rows[0]!.r;
  };
  let raw: Raw[];
  try {
    raw = await run(false);
  } catch (error) {
    if (isEnvironmentalPg(error)) throw rethrown(error);
    raw = await run(true).catch((e: unknown) => {
      throw rethrown(e);
    });
  }
  // Plain Error: carries the refused write's own reason back to the engine, which records it on the event.
  return raw.map((r): ApplyResult => (r.status === 'failed' ? { ...r, error: new Error(r.reason) } : r));
}

function rethrown(error: unknown): unknown {
  if ((error as { code?: unknown })?.code === 'BF002') {
    return new LeaseLostError('this process no longer owns a partition of the batch; nothing was written');
  }
  return error;
}
