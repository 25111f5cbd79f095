/**
 * The inbox on PostgreSQL: intake's group-commit appends (any process), the engine's reads of pending
 * events in the partitions it owns, and a notification after each append so that owners wake at once.
 */
import type pg from 'pg';
import { type Clock, systemClock } from '../ports/clock.ts';
import type { AppendResult, InboxEntry, InboxEvent } from '../ports/rows.ts';
import { PARTITIONS, partitionOf } from './database.ts';
import { inTransaction } from './transaction.ts';

/** The channel on which appends are announced in the default schema (payload: nothing; owners look at their partitions); another schema's: `channelsOf(schema).inbox`. */
export const INBOX_CHANNEL = 'botflow_inbox';

const EVENT_COLUMNS =
  'id, kind, conversation_key AS "conversationKey", payload, received_at AS "receivedAt", partition';

/** A pending event with the partition it belongs to. */
export interface PartitionedEvent extends InboxEvent {
  partition: number;
}

/** The inbox queries over a pool. */
export class PgInbox {
  /** `now` stamps `received_at` of entries that bring none, and the marker's row (default the system clock). */
  constructor(
    readonly pool: pg.Pool,
    private readonly now: Clock['now'] = systemClock.now,
  ) {}

  /**
   * Appends `entries` in one statement (one transaction) and says, entry by entry, which were new.
   * Duplicates, within the batch or with stored rows, are ignored; the first of a key wins.
   */
  append(entries: readonly InboxEntry[]): Promise<AppendResult[]> {
    return appendOn(this.pool, entries, this.now());
  }

  /**
   * Appends `entries` and stores the poller's `marker` under `markerKey` in one transaction (`marker`
   * undefined: the stored one stays), so a batch is never committed without its marker or the reverse.
   */
  async appendWithMarker(
    entries: readonly InboxEntry[],
    markerKey: string,
    marker: number | undefined,
  ): Promise<AppendResult[]> {
    return inTransaction(this.pool, async (client) => {
      const now = this.now();
      const results = await appendOn(client, entries, now);
      if (marker !== undefined) {
        await client.query(
          'INSERT INTO kv (key, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET ' +
            'value = excluded.value, updated_at = excluded.updated_at',
          [markerKey, String(marker), now],
        );
      }
      return results;
    });
  }

  /** Up to `limit` pending events of `partitions` with ids above `afterId`, in arrival order. */
  async pending(
    partitions: readonly number[],
    limit: number,
    afterId = 0,
    exclude?: ReadonlySet<number>,
  ): Promise<PartitionedEvent[]> {
    if (partitions.length === 0) return [];
    // Every partition (one process): no filter, so the next rows come straight off the pending ids' index
    // rather than from a sort of every pending row of 64 partitions.
    const all = partitions.length >= PARTITIONS && new Set(partitions).size >= PARTITIONS;
    // The rows of batches in flight are skipped here rather than read, sent and dropped.
    const skip = exclude?.size ? [...exclude] : [];
    const params: unknown[] = [limit, afterId, skip];
    if (!all) params.push(partitions);
    const { rows } = await this.pool.query<PartitionedEvent>(
      `SELECT ${EVENT_COLUMNS} FROM inbox WHERE status = 'pending' AND id > $2 AND id <> ALL ($3::bigint[]) ` +
        `${all ? '' : 'AND partition = ANY ($4::int[]) '}ORDER BY id LIMIT $1`,
      params,
    );
    return rows;
  }

  /** How many events wait, in `partitions` (all when omitted). */
  async pendingCount(partitions?: readonly number[]): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      "SELECT count(*)::bigint AS n FROM inbox WHERE status = 'pending'" +
        (partitions ? ' AND partition = ANY ($1::int[])' : ''),
      partitions ? [partitions] : [],
    );
    return rows[0]!.n;
  }

  /** Row counts per status. */
  async counts(): Promise<Record<'pending' | 'done' | 'failed' | 'ignored', number>> {
    const out = { pending: 0, done: 0, failed: 0, ignored: 0 };
    const { rows } = await this.pool.query<{ status: keyof typeof out; n: number }>(
      'SELECT status, count(*)::bigint AS n FROM inbox GROUP BY status',
    );
    for (const { status, n } of rows) out[status] = n;
    return out;
  }
}

/** Appends on a pool or inside a client's transaction (see `PgInbox.append`). */
async function appendOn(
  on: pg.Pool | pg.PoolClient,
  entries: readonly InboxEntry[],
  now: number,
): Promise<AppendResult[]> {
  if (entries.length === 0) return [];
  const first = new Map<string, number>();
  entries.forEach((entry, i) => {
    if (!first.has(entry.dedupeKey)) first.set(entry.dedupeKey, i);
  });
  const unique = [...first.values()].map((i) => entries[i]!);
  const { rows } = await on.query<{ id: number; dedupe_key: string }>(
    'WITH added AS (INSERT INTO inbox (partition, kind, dedupe_key, conversation_key, update_type, payload, ' +
      'received_at) SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], ' +
      '$7::bigint[]) ON CONFLICT (dedupe_key) DO NOTHING RETURNING id, dedupe_key) ' +
      `SELECT added.*, pg_notify(botflow_channel('inbox'), '') IS NULL AS n FROM added ORDER BY id`,
    [
      unique.map((e) => partitionOf(e.conversationKey)),
      unique.map((e) => e.kind ?? 'update'),
      unique.map((e) => e.dedupeKey),
      unique.map((e) => e.conversationKey ?? null),
      unique.map((e) => e.updateType ?? null),
      unique.map((e) => e.payload),
      unique.map((e) => e.receivedAt ?? now),
    ],
  );
  const ids = new Map(rows.map((row) => [row.dedupe_key, row.id]));
  return entries.map((entry, i): AppendResult => {
    const id = first.get(entry.dedupeKey) === i ? ids.get(entry.dedupeKey) : undefined;
    return id !== undefined ? { inserted: true, id } : { inserted: false, id: null };
  });
}
