/**
 * Leases: how several processes on one database share its partitions and the dispatcher role. Only the
 * PostgreSQL adapter has them; a store without leases is one process that owns everything.
 */

/** A live process of the bot. */
export interface Member {
  id: string;
  startedAt: number;
  info: Record<string, unknown>;
  /** Its heartbeat holds but it is known dead (PostgreSQL: its listening session ended): treat it as gone. */
  gone?: boolean;
}

/** One call the dispatcher made in its last second: how long before the handover it was answered, its chat. */
export interface HandedSend {
  agoMs: number;
  chatId?: number;
}

/** What a process stopping cleanly hands over with its leases (the dispatcher: its last second of calls). */
export interface LeaseHandover {
  sends?: HandedSend[];
}

/**
 * A change another process announced (PostgreSQL: NOTIFY on `botflow_leases`), so that the others tick at
 * once instead of at their next tick: it `left` (its leases are free), `released` partitions another
 * member should have, or `joined` (the others give it its share).
 */
export interface LeaseNews {
  member: string;
  kind: 'left' | 'released' | 'joined';
  handover?: LeaseHandover;
}

/** Membership and leases, in the database's time. */
export interface LeasePort {
  /** Records that `member` is alive for `ttlMs` more; returns the database's now. */
  heartbeat(member: string, ttlMs: number, info: Record<string, unknown>): Promise<number>;
  /** Live members, oldest first (those known dead before their heartbeat lapsed marked `gone`). */
  liveMembers(): Promise<Member[]>;
  /** Whether a member other than `asking` known dead (`gone`) still holds a lease: tick now to take it. */
  goneHolding?(asking: string): Promise<boolean>;
  /** Takes or renews the leases of `names` that are free or already `owner`'s; returns those held. */
  acquire(owner: string, names: readonly string[], ttlMs: number): Promise<string[]>;
  /** Who holds the lease `name` now, expired or not (null: free). */
  owner?(name: string): Promise<string | null>;
  /** Gives `names` back (the others hear of it). */
  release(owner: string, names: readonly string[]): Promise<void>;
  /** Gives every lease back and removes the member; the others hear of it, with `handover`. */
  leave(member: string, handover?: LeaseHandover): Promise<void>;
}
