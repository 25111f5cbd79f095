/**
 * Small durable things on PostgreSQL: the button-signing secret (created once, shared by every process),
 * the flow versions seen (with their source, so a restart can rebuild pinned versions), the kv table.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { systemClock } from '../ports/clock.ts';
import { inTransaction } from './transaction.ts';

const BUTTON_SECRET_KEY = 'engine.button_secret';

/** The shared button-signing secret, created on first use (whoever writes first wins). */
export async function pgButtonSecret(pool: pg.Pool, now: number): Promise<string> {
  await pool.query(
    'INSERT INTO kv (key, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING',
    [BUTTON_SECRET_KEY, randomBytes(32).toString('base64url'), now],
  );
  return (await pgKvGet(pool, BUTTON_SECRET_KEY))!;
}

/** A kv value. */
export async function pgKvGet(pool: pg.Pool, key: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ value: string }>('SELECT value FROM kv WHERE key = $1', [key]);
  return rows[0]?.value;
}

/** Sets a kv value. */
export async function pgKvSet(
  pool: pg.Pool,
  key: string,
  value: string,
  now = systemClock.now(),
): Promise<void> {
  await pool.query(
    'INSERT INTO kv (key, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET ' +
      'value = excluded.value, updated_at = excluded.updated_at',
    [key, value, now],
  );
}

/** Records that a flow version was loaded (with the source it can be rebuilt from). */
export async function pgRecordFlowVersion(
  pool: pg.Pool,
  flowId: string,
  version: string,
  now: number,
  source: string | undefined,
): Promise<void> {
  await pool.query(
    'INSERT INTO flow_versions (flow_id, version, first_loaded_at, last_loaded_at, source) VALUES ($1, $2, $3, $3, $4) ' +
      'ON CONFLICT (flow_id, version) DO UPDATE SET last_loaded_at = excluded.last_loaded_at, ' +
      'source = coalesce(excluded.source, flow_versions.source)',
    [flowId, version, now, source ?? null],
  );
}

/** The stored sources of these flow versions, by `flowId@version` (versions without a source are absent). */
export async function pgFlowSources(
  pool: pg.Pool,
  versions: readonly { flowId: string; flowVersion: string }[],
): Promise<Map<string, string>> {
  if (versions.length === 0) return new Map();
  const { rows } = await pool.query<{ key: string; source: string }>(
    "SELECT flow_id || '@' || version AS key, source FROM flow_versions WHERE source IS NOT NULL AND " +
      '(flow_id, version) IN (SELECT * FROM unnest($1::text[], $2::text[]))',
    [versions.map((v) => v.flowId), versions.map((v) => v.flowVersion)],
  );
  return new Map(rows.map((row) => [row.key, row.source]));
}

/**
 * One read-modify-write of the kv row `key` (created with `initial` when missing) under the row's lock, in
 * one transaction: `change` gets the stored value and the database's time (ms) and returns the new value.
 */
export async function pgKvUpdate<T>(
  pool: pg.Pool,
  key: string,
  initial: string,
  change: (value: string, now: number) => { value: string; result: T },
): Promise<T> {
  return inTransaction(pool, async (client) => {
    await client.query(
      'INSERT INTO kv (key, value, updated_at) VALUES ($1, $2, 0) ON CONFLICT (key) DO NOTHING',
      [key, initial],
    );
    const { rows } = await client.query<{ value: string; now: number }>(
      'SELECT value, (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now FROM kv WHERE key = $1 FOR UPDATE',
      [key],
    );
    const now = Number(rows[0]!.now);
    const { value, result } = change(rows[0]!.value, now);
    await client.query('UPDATE kv SET value = $2, updated_at = $3 WHERE key = $1', [
      key,
      value,
      Math.round(now),
    ]);
    return result;
  });
}
