/**
 * Queries of the `kv` table: small durable values such as the long-polling marker.
 */
import type Database from 'better-sqlite3';
import { systemClock } from './ports/clock.ts';

/** Well-known keys, so that two modules never pick the same name for different things. */
export const KV_KEYS = {
  /** The marker of the last committed `GET /updates` batch. */
  pollingMarker: 'intake.polling.marker',
} as const;

/** Get and set text values by key over one connection. */
export class KvStore {
  private readonly select: Database.Statement;
  private readonly upsert: Database.Statement;
  private readonly remove: Database.Statement;

  constructor(readonly db: Database.Database) {
    this.select = db.prepare('SELECT value FROM kv WHERE key = ?').pluck();
    this.upsert = db.prepare(
      'INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?) ' +
        'ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    );
    this.remove = db.prepare('DELETE FROM kv WHERE key = ?');
  }

  /** The value stored under `key`, or undefined. */
  get(key: string): string | undefined {
    return this.select.get(key) as string | undefined;
  }

  /** Stores `value` under `key`, replacing any previous value. */
  set(key: string, value: string, now = systemClock.now()): void {
    this.upsert.run(key, value, now);
  }

  /** Removes `key`; returns whether it existed. */
  delete(key: string): boolean {
    return this.remove.run(key).changes > 0;
  }
}
