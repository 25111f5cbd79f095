/**
 * Members and leases on PostgreSQL, in the database's time: each process heartbeats its member row; a
 * lease (a partition, the dispatcher) is held while its expiry is ahead and is taken over only
 * once it has passed. Every change of owner bumps the lease's epoch. Leaving, releasing and joining are
 * announced on the bot's lease channel (`botflow_leases` in the default schema; lease-notify.ts) in the same statement, so the others act at once.
 */
import type pg from 'pg';
import type { LeaseHandover, LeaseNews } from '../ports/leases.ts';
import { leaseNewsPayload } from './lease-notify.ts';

/**
 * The member `m` is dead although its heartbeat still holds: the listening connection it named (`session`
 * in its info: pg_listen's server process id) is gone. A SIGKILLed process's sockets close with it, so its
 * partitions and the dispatcher role move within a tick instead of after a lease time. A member that
 * names no session (it could not listen) is judged by its heartbeat alone.
 */
export const SESSION_GONE =
  "(m.info::json->>'session') IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a " +
  "WHERE a.pid = (m.info::json->>'session')::int)";

/** A live process of the bot. */
export interface Member {
  id: string;
  startedAt: number;
  info: Record<string, unknown>;
  /** Its heartbeat holds but its session is gone: it died moments ago (SIGKILL). */
  gone?: boolean;
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
    const { rows } = await this.pool.query<{ now: number; joined: boolean }>(
      'INSERT INTO members (id, started_at, heartbeat_at, expires_at, info) ' +
        'SELECT $1, n, n, n + $2, $3 FROM botflow_now_ms() n ON CONFLICT (id) DO UPDATE SET ' +
        'heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at, info = excluded.info ' +
        'RETURNING heartbeat_at AS now, xmax = 0 AS joined',
      [member, ttlMs, JSON.stringify(info)],
    );
    // A new member: the others give it its share now rather than at their next tick.
    if (rows[0]!.joined) await this.#announce({ member, kind: 'joined' });
    return rows[0]!.now;
  }

  /**
   * Members whose heartbeat holds, oldest first (`gone`: its session ended, so it is dead all the same);
   * members dead for a minute are deleted on the way.
   */
  async liveMembers(): Promise<Member[]> {
    await this.pool.query('DELETE FROM members WHERE expires_at < botflow_now_ms() - 60000');
    const { rows } = await this.pool.query<{ id: string; startedAt: number; info: string; gone: boolean }>(
      `SELECT id, started_at AS "startedAt", info, ${SESSION_GONE} AS gone FROM members m ` +
        'WHERE expires_at > botflow_now_ms() ORDER BY started_at, id',
    );
    return rows.map((row) => ({
      id: row.id,
      startedAt: row.startedAt,
      info: JSON.parse(row.info),
      ...(row.gone ? { gone: true } : {}),
    }));
  }

  /** Whether a member other than `asking` whose session is gone still holds a lease: tick now. */
  async goneHolding(asking: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ found: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM leases l JOIN members m ON m.id = l.owner ' +
        `WHERE l.owner <> $1 AND l.expires_at > botflow_now_ms() AND ${SESSION_GONE}) AS found`,
      [asking],
    );
    return rows[0]?.found ?? false;
  }

  /** Ends `member` at once (a clean stop): its leases are free for the others now. */
  async leave(member: string, handover?: LeaseHandover): Promise<void> {
    const news = leaseNewsPayload({ member, kind: 'left', ...(handover ? { handover } : {}) });
    await this.pool.query(
      'WITH freed AS (UPDATE leases SET owner = NULL, expires_at = 0 WHERE owner = $1 RETURNING name), ' +
        'gone AS (DELETE FROM members WHERE id = $1 RETURNING id) ' +
        "SELECT pg_notify(botflow_channel('leases'), $2), (SELECT count(*) FROM freed) AS freed, " +
        '(SELECT count(*) FROM gone) AS gone',
      [member, news],
    );
  }

  /**
   * Takes or renews the leases `names` for `ttlMs`: renewed where `owner` holds them, taken where they are
   * free, expired or held by a member whose session is gone. Returns the names held after the call.
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
        `expires_at <= botflow_now_ms() OR owner IN (SELECT id FROM members m WHERE ${SESSION_GONE})) RETURNING name`,
      [names, owner, ttlMs],
    );
    return rows.map((row) => row.name);
  }

  /** Who holds the lease `name` now, expired or not (null: free or unknown). */
  async owner(name: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ owner: string | null }>(
      'SELECT owner FROM leases WHERE name = $1',
      [name],
    );
    return rows[0]?.owner ?? null;
  }

  /** Gives up the leases `names` held by `owner`. */
  async release(owner: string, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    await this.pool.query(
      'WITH freed AS (UPDATE leases SET owner = NULL, expires_at = 0 WHERE name = ANY ($1::text[]) ' +
        "AND owner = $2 RETURNING name) SELECT pg_notify(botflow_channel('leases'), $3) " +
        'FROM (SELECT count(*) AS n FROM freed) f ' +
        'WHERE f.n > 0',
      [names, owner, leaseNewsPayload({ member: owner, kind: 'released' })],
    );
  }

  async #announce(news: LeaseNews): Promise<void> {
    await this.pool.query("SELECT pg_notify(botflow_channel('leases'), $1)", [leaseNewsPayload(news)]);
  }

  /** Every lease, for reports (`botflow run` logs, the health endpoint, tests). */
  async all(): Promise<LeaseRow[]> {
    const { rows } = await this.pool.query<LeaseRow>(
      'SELECT name, owner, expires_at AS "expiresAt", epoch FROM leases ORDER BY name',
    );
    return rows;
  }
}
