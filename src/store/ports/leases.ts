/**
 * Leases: how several processes on one database share its partitions and the dispatcher role. Only the
 * PostgreSQL adapter has them; a store without leases is one process that owns everything.
 */

/** A live process of the bot. */
export interface Member {
  id: string;
  startedAt: number;
  info: Record<string, unknown>;
}

/** Membership and leases, in the database's time. */
export interface LeasePort {
  /** Records that `member` is alive for `ttlMs` more; returns the database's now. */
  heartbeat(member: string, ttlMs: number, info: Record<string, unknown>): Promise<number>;
  /** Live members, oldest first. */
  liveMembers(): Promise<Member[]>;
  /** Takes or renews the leases of `names` that are free or already `owner`'s; returns those held. */
  acquire(owner: string, names: readonly string[], ttlMs: number): Promise<string[]>;
  /** Gives `names` back. */
  release(owner: string, names: readonly string[]): Promise<void>;
  /** Gives every lease back and removes the member. */
  leave(member: string): Promise<void>;
}
