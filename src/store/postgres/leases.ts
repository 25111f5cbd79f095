/**
 * Members and leases on PostgreSQL, in the database's time: each process heartbeats its member row; a
 * lease (a partition, the dispatcher) is held while its expiry is ahead and is taken over only
 * once it has passed. Every change of owner bumps the lease's epoch.
 */
import type pg from 'pg';

/** A live process of the bot. */
export interface Member {
  id: string;
  startedAt: number;
  info: Record<string, unknown>;
}

/** A lease as stored. */
export interface LeaseRow {
  name: string;
  owner: string | null;
  expiresAt: number;
  epoch: number;
}

/** Lease and membership queries over a pool. */
export class PgLeases {
  constructor(readonly pool: pg.Pool) {}

  /** Records that `member` is alive for `ttlMs` more (database time); returns the database's now. */
  async heartbeat(member: string, ttlMs: number, info: Record<string, unknown>): Promise<number> {
    const { rows } = await this.pool.query<{ now: number }>(
      'INSERT INTO members (id, started_at, heartbeat_at, expires_at, info) ' +
        'SELECT $1, n, n, n + $2, $3 FROM botflow_now_ms() n ON CONFLICT (id) DO UPDATE SET ' +
        'heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at, info = excluded.info ' +
        'RETURNING heartbeat_at AS now',
      [member, ttlMs, JSON.stringify(info)],
    );
    return rows[0]!.now;
  }

  /** Live members, oldest first; members dead for a minute are deleted on the way. */
  async liveMembers(): Promise<Member[]> {
    await this.pool.query('DELETE FROM members WHERE expires_at < botflow_now_ms() - 60000');
    const { rows } = await this.pool.query<{ id: string; startedAt: number; info: string }>(
      'SELECT id, started_at AS "startedAt", info FROM members WHERE expires_at > botflow_now_ms() ' +
        'ORDER BY started_at, id',
    );
    return rows.map((row) => ({ id: row.id, startedAt: row.startedAt, info: JSON.parse(row.info) }));
  }

  /** Ends `member` at once (a clean stop): its leases are free for the others now. */
  async leave(member: string): Promise<void> {
    await this.pool.query('UPDATE leases SET owner = NULL, expires_at = 0 WHERE owner = $1', [member]);
    await this.pool.query('DELETE FROM members WHERE id = $1', [member]);
  }

  /**
   * Takes or renews the leases `names` for `ttlMs`: renewed where `owner` holds them, taken where they are
   * free or expired. Returns the names held after the call.
   */
  async acquire(owner: string, names: readonly string[], ttlMs: number): Promise<string[]> {
    if (names.length === 0) return [];
    await this.pool.query(
      'INSERT INTO leases (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING',
      [names],
    );
    const { rows } = await this.pool.query<{ name: string }>(
      'UPDATE leases SET epoch = CASE WHEN owner IS DISTINCT FROM $2 THEN epoch + 1 ELSE epoch END, owner = $2, ' +
        'expires_at = botflow_now_ms() + $3 WHERE name = ANY ($1::text[]) AND (owner = $2 OR owner IS NULL OR ' +
        'expires_at <= botflow_now_ms()) RETURNING name',
      [names, owner, ttlMs],
    );
    return rows.map((row) => row.name);
  }

  /** Gives up the leases `names` held by `owner`. */
  async release(owner: string, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    await this.pool.query(
      'UPDATE leases SET owner = NULL, expires_at = 0 WHERE name = ANY ($1::text[]) AND owner = $2',
      [names, owner],
    );
  }

  /** Every lease, for reports (`botflow run` logs, the health endpoint, tests). */
  async all(): Promise<LeaseRow[]> {
    const { rows } = await this.pool.query<LeaseRow>(
      'SELECT name, owner, expires_at AS "expiresAt", epoch FROM leases ORDER BY name',
    );
    return rows;
  }
}
