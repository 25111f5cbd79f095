/**
 * Where every lane is and when it may go next: idle, sleeping until a time (per-chat window, 429
 * pause, retry backoff), or ready in the ring of its priority class. Picks the next lane to serve:
 * strict priority between classes with a guaranteed share for waiting lower classes, round robin
 * within a class. Drops chat lanes that are idle and whose window has passed.
 */
import { type Entry, LANE_IDLE, LANE_SLEEPING, Lane, LaneRing, WakeupHeap } from './chat-queues.ts';
import { chatExpiresAt, chatNextFreeAt } from './sliding-window.ts';
import { PRIORITIES } from './types.ts';

/** lane.state while the lane sits in the ready ring of class c is READY_BASE + c. */
const READY_BASE = 10;

export class LaneBoard {
  /** Chat lanes by chat id; created on first use, deleted when idle. */
  readonly lanes = new Map<number, Lane>();
  /**
   * The lanes of calls tied to no chat (the long poll, getMyInfo, subscriptions, uploads), one per
   * FIFO (express, main, bulk). Separate lanes, so that each keeps its own place in the round of its
   * class: with one shared lane, a long poll re-submitted every 150 ms lifted the lane into the
   * callback class, and after the poll went it was filed at the back of the reply round again, so a
   * queued getMyInfo behind 40 busy chats never reached the front (issue 28).
   */
  readonly unscoped: readonly [Lane, Lane, Lane] = [
    new Lane(undefined),
    new Lane(undefined),
    new Lane(undefined),
  ];
  private readonly rings = PRIORITIES.map(() => new LaneRing());
  private readonly isReadyIn = PRIORITIES.map((_, c) => c).map(
    (c) => (lane: Lane, token: number) => lane.token === token && lane.state === READY_BASE + c,
  );
  private readonly classSkips = PRIORITIES.map(() => 0);
  private readonly wakeups = new WakeupHeap();
  private readonly idle = new LaneRing();
  private readonly isIdle = (lane: Lane, token: number) =>
    lane.token === token && lane.state === LANE_IDLE && !lane.busy && !lane.queues;
  /** Chats whose own backlog takes longer to drain at the per-chat rate than all work at the global rate. */
  private readonly critical = new Set<Lane>();
  private boostedLast = false;
  /** Lanes that have queued work (kept by the scheduler and `place`). */
  lanesWithWork = 0;

  constructor(
    /** Jobs waiting in all lanes. */
    private readonly totalQueued: () => number,
    private readonly perChat: number,
    private readonly chatWindowMs: number,
    private readonly classShareEvery: number,
    private readonly bulkShareEvery: number,
  ) {}

  laneFor(chatId: number): Lane {
    let lane = this.lanes.get(chatId);
    if (!lane) {
      lane = new Lane(chatId);
      this.lanes.set(chatId, lane);
    }
    return lane;
  }

  /** Re-files a lane after anything about it changed. A lane with a call in flight is re-filed when it ends. */
  place(lane: Lane, now: number): void {
    if (lane.busy) return;
    if (!lane.queues || lane.queues.size === 0) {
      if (lane.queues) this.lanesWithWork--;
      lane.queues = null;
      lane.state = LANE_IDLE;
      if (lane.chatId !== undefined) {
        lane.token++;
        this.idle.push(lane, lane.token);
      }
      return;
    }
    this.noteBacklog(lane);
    const next = lane.queues.nextEntry(this.bulkShareEvery)!;
    // Read-backs and chat actions keep the chat's order but not its per-chat window (not counted).
    const windowFreeAt =
      lane.chatId === undefined || !next.countsPerChat
        ? 0
        : chatNextFreeAt(lane, this.perChat, this.chatWindowMs, now);
    const eligibleAt = Math.max(lane.pausedUntil, windowFreeAt);
    if (eligibleAt > now) {
      lane.token++;
      lane.state = LANE_SLEEPING;
      this.wakeups.push({ at: eligibleAt, lane, token: lane.token, entry: null });
      return;
    }
    const classIndex = next.classIndex;
    if (lane.state === READY_BASE + classIndex) return; // keeps its place in the round
    lane.token++;
    lane.state = READY_BASE + classIndex;
    this.rings[classIndex]!.push(lane, lane.token);
  }

  /**
   * Notes a chat whose backlog is well above the average (e.g. 100 sends to one chat among 3,000 over
   * 300 chats): plain round robin gives it one turn per round, so it would drain alone at 2/s after
   * everyone else. Such chats may take every other dispatch while they are eligible; their per-chat
   * limit caps each at 2/s, and the alternation leaves at least half of the capacity to round robin.
   */
  private noteBacklog(lane: Lane): void {
    if (lane.chatId !== undefined && this.isCritical(lane)) this.critical.add(lane);
  }

  private isCritical(lane: Lane): boolean {
    const size = lane.queues?.size ?? 0;
    return size > 1 && size * this.lanesWithWork > 2 * this.totalQueued();
  }

  /** A ready critical chat of class `c`, at most every other dispatch. */
  private boosted(c: number): Lane | undefined {
    if (this.critical.size === 0 || this.boostedLast) {
      this.boostedLast = false;
      return undefined;
    }
    for (const lane of this.critical) {
      if (!this.isCritical(lane) || this.lanes.get(lane.chatId!) !== lane) {
        this.critical.delete(lane);
      } else if (lane.state === READY_BASE + c) {
        this.boostedLast = true;
        return lane;
      }
    }
    return undefined;
  }

  /** Files a new job's lane unless it is asleep (its wake-up time does not depend on the new job). */
  placeAfterSubmit(lane: Lane, now: number): void {
    if (lane.state !== LANE_SLEEPING) this.place(lane, now);
  }

  /** Holds one entry of an unscoped lane outside its queue until `at` (its retry backoff). */
  delay(entry: Entry, at: number): void {
    this.wakeups.push({ at, lane: entry.lane!, token: -1, entry });
  }

  /** Moves lanes and delayed entries whose time has come back into play; `requeue` puts an entry back. */
  wake(now: number, requeue: (entry: Entry) => boolean): void {
    for (let top = this.wakeups.peek(); top && top.at <= now; top = this.wakeups.peek()) {
      this.wakeups.pop();
      if (top.entry) {
        if (requeue(top.entry)) this.place(top.lane, now);
      } else if (top.lane.token === top.token && top.lane.state === LANE_SLEEPING) {
        top.lane.state = LANE_IDLE;
        this.place(top.lane, now);
      }
    }
  }

  /**
   * Strict priority between classes, except that a waiting lower class gets a turn after `classShareEvery`
   * skips; only classes before `below` (all by default: bulk waits while the budget's reserve is short).
   */
  pickLane(below = this.rings.length): Lane | undefined {
    let chosen = -1;
    let starving = -1;
    for (let c = 0; c < below; c++) {
      if (!this.rings[c]!.peekValid(this.isReadyIn[c]!)) continue;
      if (chosen < 0) chosen = c;
      else if (
        this.classSkips[c]! >= this.classShareEvery &&
        (starving < 0 || this.classSkips[c]! > this.classSkips[starving]!)
      ) {
        starving = c;
      }
    }
    if (chosen < 0) return undefined;
    if (starving >= 0) chosen = starving;
    for (let c = 0; c < below; c++) {
      if (c === chosen) this.classSkips[c] = 0;
      else if (this.rings[c]!.size > 0) this.classSkips[c]!++;
    }
    const boosted = this.boosted(chosen);
    if (boosted) {
      boosted.state = LANE_IDLE; // its ring entry goes stale
      return boosted;
    }
    const ring = this.rings[chosen]!;
    const lane = ring.peekValid(this.isReadyIn[chosen]!)!;
    ring.dropHead();
    lane.state = LANE_IDLE;
    return lane;
  }

  /** A lane of a class before `below` (all by default) is ready. */
  hasReady(below = this.rings.length): boolean {
    return this.rings.some((ring, c) => c < below && ring.peekValid(this.isReadyIn[c]!) !== undefined);
  }

  /** The earliest wake-up time, if anything sleeps. */
  nextWakeAt(): number | undefined {
    return this.wakeups.peek()?.at;
  }

  /** When the oldest idle chat can be forgotten, if any is waiting for that. */
  nextEvictionAt(): number | undefined {
    const lane = this.idle.size > 0 ? this.idle.peekValid(this.isIdle) : undefined;
    return lane && Math.max(chatExpiresAt(lane, this.chatWindowMs), lane.pausedUntil);
  }

  /** Drops chats that have nothing queued and whose window and pause have passed. */
  sweepIdle(now: number): void {
    for (let rotations = 0; rotations < 64; ) {
      const lane = this.idle.peekValid(this.isIdle);
      if (!lane) return;
      const expiresAt = Math.max(chatExpiresAt(lane, this.chatWindowMs), lane.pausedUntil);
      if (expiresAt <= now) {
        this.idle.dropHead();
        this.lanes.delete(lane.chatId!);
      } else if (expiresAt > now + this.chatWindowMs) {
        this.idle.dropHead(); // a long pause: look again later without blocking the others behind it
        this.idle.push(lane, lane.token);
        rotations++;
      } else {
        return;
      }
    }
  }

  /** Every lane (close, global pauses). */
  allLanes(): Lane[] {
    return [...this.unscoped, ...this.lanes.values()];
  }

  /** Removes every delayed entry (close). */
  takeDelayed(): Entry[] {
    return this.wakeups.drain().flatMap((w) => (w.entry ? [w.entry] : []));
  }
}
