/**
 * Which process handles which conversations when several share one PostgreSQL database. Conversations are
 * spread over partitions (hash of the conversation key); each live process heartbeats, and every partition
 * goes to the live member that ranks it highest (rendezvous hashing: when a process joins or leaves, only
 * the partitions it takes or leaves move). A process takes a partition through its lease, which it renews at
 * every tick; a dead process's leases lapse and its partitions are taken within a lease time. The same tick
 * takes or renews the `dispatcher` lease: the one process that sends (and, in polling mode, polls: every
 * call to the platform then goes through one scheduler, within the bot's limits).
 */
import type { Logger } from 'pino';
import { hash32, PARTITIONS } from '../../store/partitions.ts';
import type { LeaseHandover, LeasePort } from '../../store/ports/leases.ts';

/** Timings of ownership. */
export interface OwnershipTimings {
  /** How often a process heartbeats and renews its leases (default 1000 ms). */
  tickMs?: number;
  /** How long a lease or a heartbeat holds without renewal (default 3000 ms): a dead process's partitions move after this. */
  leaseMs?: number;
}

/** What a process holds now. */
export interface Role {
  member: string;
  /** Partitions this process handles, ascending. */
  partitions: number[];
  /** This process sends the outbox. */
  dispatcher: boolean;
  /** Live processes of the bot, this one included. */
  members: number;
  /** Database time of the last successful tick (0 before the first). */
  lastTickAt: number;
}

/** The rank of `member` for `partition`. */
const score = (member: string, partition: number) => hash32(`${member}/${partition}`);

/** The partitions (of `count`) that `member` should own among `members` (rendezvous hashing). */
export function partitionsFor(member: string, members: readonly string[], count = PARTITIONS): number[] {
  const mine: number[] = [];
  for (let p = 0; p < count; p++) {
    let best: string | undefined;
    let bestScore = -1;
    for (const m of members) {
      const s = score(m, p);
      if (s > bestScore || (s === bestScore && best !== undefined && m < best)) {
        best = m;
        bestScore = s;
      }
    }
    if (best === member) mine.push(p);
  }
  return mine;
}

const partitionName = (p: number) => `partition:${p}`;

/** One process's side of ownership: call `tick()` every `tickMs`. */
export class Ownership {
  readonly #leases: LeasePort;
  readonly #member: string;
  readonly #leaseMs: number;
  readonly #dispatcher: boolean;
  readonly #info: Record<string, unknown>;
  readonly #session: (() => number | undefined) | undefined;
  readonly #logger: Logger | undefined;
  #role: Role;

  constructor(options: {
    leases: LeasePort;
    member: string;
    /** Take part in the dispatcher election (default true). */
    dispatcher?: boolean;
    leaseMs?: number;
    info?: Record<string, unknown>;
    /**
     * The database session that ends when this process dies (PostgreSQL: the listening connection's server
     * process), told with every heartbeat: the others take its leases as soon as it is gone.
     */
    session?: () => number | undefined;
    logger?: Logger | undefined;
  }) {
    this.#leases = options.leases;
    this.#member = options.member;
    this.#leaseMs = options.leaseMs ?? 3000;
    this.#dispatcher = options.dispatcher ?? true;
    this.#info = options.info ?? {};
    this.#session = options.session;
    this.#logger = options.logger;
    this.#role = {
      member: this.#member,
      partitions: [],
      dispatcher: false,
      members: 0,
      lastTickAt: 0,
    };
  }

  /** What this process holds now. */
  get role(): Role {
    return this.#role;
  }

  /**
   * Heartbeats, gives up the partitions another member should have, takes or renews this member's share and
   * the dispatcher lease. Returns the new role and which partitions were gained.
   */
  async tick(): Promise<{ role: Role; gained: number[]; lost: number[]; fromDead: boolean }> {
    const session = this.#session?.();
    const now = await this.#leases.heartbeat(this.#member, this.#leaseMs, {
      ...this.#info,
      partitions: this.#role.partitions.length,
      dispatcher: this.#role.dispatcher,
      ...(session !== undefined ? { session } : {}),
    });
    const live = await this.#leases.liveMembers();
    // A member whose session is gone died moments ago: its share moves now; it counts as alive moments ago.
    const members = live.filter((m) => !m.gone || m.id === this.#member).map((m) => m.id);
    if (!members.includes(this.#member)) members.push(this.#member);
    const want = new Set(partitionsFor(this.#member, members));
    const giveUp = this.#role.partitions.filter((p) => !want.has(p));
    await this.#leases.release(this.#member, giveUp.map(partitionName));
    const names = [...want].map(partitionName);
    if (this.#dispatcher) names.push('dispatcher');
    // Whose dispatcher lease this tick may take: a member no longer alive sent nothing for seconds.
    const previous =
      this.#dispatcher && !this.#role.dispatcher ? await this.#leases.owner?.('dispatcher') : undefined;
    const held = new Set(await this.#leases.acquire(this.#member, names, this.#leaseMs));
    const partitions = [...want].filter((p) => held.has(partitionName(p))).sort((a, b) => a - b);
    const before = new Set(this.#role.partitions);
    const gained = partitions.filter((p) => !before.has(p));
    const kept = new Set(partitions);
    const lost = this.#role.partitions.filter((p) => !kept.has(p));
    const role: Role = {
      member: this.#member,
      partitions,
      dispatcher: held.has('dispatcher'),
      members: members.length,
      lastTickAt: now,
    };
    if (gained.length > 0 || lost.length > 0 || role.dispatcher !== this.#role.dispatcher) {
      this.#logger?.info(
        {
          member: this.#member,
          partitions: partitions.length,
          gained: gained.length,
          lost: lost.length,
          dispatcher: role.dispatcher,
          members: role.members,
        },
        `role: ${partitions.length} of ${PARTITIONS} partitions${role.dispatcher ? ', dispatcher' : ''} ` +
          `(${role.members} live process${role.members === 1 ? '' : 'es'})`,
      );
    }
    // Leases this process wanted and held, and could not renew: they lapsed (a stall) or were taken.
    const lapsed = this.#role.partitions.filter((p) => want.has(p) && !held.has(partitionName(p)));
    if (lapsed.length > 0 || (this.#role.dispatcher && this.#dispatcher && !held.has('dispatcher')))
      this.#logger?.warn(
        {
          member: this.#member,
          partitions: lapsed.length,
          dispatcher: this.#role.dispatcher && !held.has('dispatcher'),
        },
        'leases lapsed while this process was alive (it could not renew them in time)',
      );
    // Dead for seconds (its heartbeat lapsed): none of its calls counts any more. One whose session just
    // ended may have sent this second: the new dispatcher pauses.
    const fromDead =
      role.dispatcher &&
      !this.#role.dispatcher &&
      !!previous &&
      previous !== this.#member &&
      !live.some((m) => m.id === previous);
    this.#role = role;
    return { role, gained, lost, fromDead };
  }

  /**
   * Gives every lease back and leaves (a clean stop), handing `handover` over: the others hear of it
   * (PostgreSQL: NOTIFY) and take over at once, or at their next tick if the news is lost.
   */
  async leave(handover?: LeaseHandover): Promise<void> {
    await this.#leases.leave(this.#member, handover);
    this.#role = { ...this.#role, partitions: [], dispatcher: false };
  }
}
