/**
 * The scheduler's data structures: a lane per chat (created lazily, dropped when idle) with three
 * FIFOs, ring queues of ready lanes per priority class, and one min-heap of lanes and jobs waiting
 * for a time. Stale ring and heap entries are skipped by a per-lane token instead of being removed.
 */
import type { OperationName } from '../operations.ts';
import type { ChatLog } from './sliding-window.ts';
import type { MediaKind } from './types.ts';

/** Priority class index, in the order of `PRIORITIES`: 0 intake, 1 reply, 2 edit, 3 callback, 4 typing, 5 read-back, 6 bulk. */
export type ClassIndex = 0 | 1 | 2 | 3 | 4 | 5 | 6;
/** Which of a lane's FIFOs a job waits in: 0 express (callback answers), 1 main (replies, edits, typing, read-backs), 2 bulk. */
export type QueueIndex = 0 | 1 | 2;

/** Where an entry is: in its lane's FIFO, on the wire, waiting to retry outside a FIFO, or settled. */
export const WHERE = { queued: 0, inFlight: 1, delayed: 2, done: 3 } as const;

/** One submitted job while the scheduler holds it. */
export class Entry {
  /** Next entry in the same FIFO. */
  next: Entry | null = null;
  attempts = 0;
  /** When the first `attachment.not.ready` answer came (its retry budget runs from there). */
  notReadySince = -1;
  notReadyAttempts = 0;
  /** When it was first dispatched (for wait-time metrics); -1 before. */
  firstDispatchAt = -1;
  /** The current attempt: when it was dispatched, its ticket in the global log, and how many calls its chat had in the window then. */
  dispatchedAt = -1;
  globalTicket = -1;
  chatCallsInWindow = 0;
  lastError: unknown = undefined;
  /** Custom work instead of an API call (the upload host); it still counts against the windows. */
  task: ((signal: AbortSignal | undefined) => Promise<unknown>) | null = null;
  /** Runs before each attempt goes out (`Job.onStart`). */
  onStart: (() => Promise<void> | void) | undefined = undefined;
  onAbort: (() => void) | null = null;
  /** The chat it counts against, and the lane it waits in. */
  chatId: number | undefined = undefined;
  lane: Lane | undefined = undefined;
  /** Counts against its chat's per-chat window (false for read-backs and chat actions in a chat lane). */
  countsPerChat = true;
  /** Queued, in flight, delayed (waiting to retry outside a queue) or done: one of WHERE. */
  where: number = WHERE.queued;

  constructor(
    readonly op: OperationName | string,
    readonly args: Record<string, unknown>,
    readonly classIndex: ClassIndex,
    readonly queueIndex: QueueIndex,
    readonly submittedAt: number,
    readonly deadline: number,
    readonly retryAmbiguous: boolean,
    readonly mediaKind: MediaKind | undefined,
    readonly signal: AbortSignal | undefined,
    readonly resolve: (value: unknown) => void,
    readonly reject: (error: unknown) => void,
  ) {}
}

/** A lane's queued work; allocated only while the lane has any. */
export class LaneQueues {
  heads: [Entry | null, Entry | null, Entry | null] = [null, null, null];
  tails: [Entry | null, Entry | null, Entry | null] = [null, null, null];
  size = 0;
  /** Dispatches from the express and main FIFOs in a row while bulk work waited. */
  bulkSkips = 0;

  push(entry: Entry): void {
    const q = entry.queueIndex;
    const tail = this.tails[q];
    if (tail) tail.next = entry;
    else this.heads[q] = entry;
    this.tails[q] = entry;
    this.size++;
  }

  /** Puts an entry back in front of its FIFO (a retry keeps its place). */
  unshift(entry: Entry): void {
    const q = entry.queueIndex;
    entry.next = this.heads[q];
    this.heads[q] = entry;
    if (!this.tails[q]) this.tails[q] = entry;
    this.size++;
  }

  /** Puts `entry` where `queued` waits (same FIFO), taking it out; false if `queued` is not queued here. */
  replace(queued: Entry, entry: Entry): boolean {
    const q = queued.queueIndex;
    if (entry.queueIndex !== q) return false;
    let prev: Entry | null = null;
    for (let cur = this.heads[q]; cur; prev = cur, cur = cur.next) {
      if (cur !== queued) continue;
      entry.next = cur.next;
      if (prev) prev.next = entry;
      else this.heads[q] = entry;
      if (this.tails[q] === cur) this.tails[q] = entry;
      cur.next = null;
      return true;
    }
    return false;
  }

  /** The head of the FIFO that serves next, if any. */
  nextEntry(bulkShareEvery: number): Entry | undefined {
    const q = this.nextQueue(bulkShareEvery);
    return q < 0 ? undefined : this.heads[q as QueueIndex]!;
  }

  /** Removes one entry wherever it is (abort, expiry). Returns whether it was queued. */
  remove(entry: Entry): boolean {
    const q = entry.queueIndex;
    let prev: Entry | null = null;
    for (let cur = this.heads[q]; cur; prev = cur, cur = cur.next) {
      if (cur !== entry) continue;
      if (prev) prev.next = cur.next;
      else this.heads[q] = cur.next;
      if (this.tails[q] === cur) this.tails[q] = prev;
      cur.next = null;
      this.size--;
      return true;
    }
    return false;
  }

  /** Which FIFO serves next: express first, then main, with bulk let through after `bulkShareEvery` skips. */
  nextQueue(bulkShareEvery: number): QueueIndex | -1 {
    const bulkWaiting = this.heads[2] !== null;
    if (bulkWaiting && this.bulkSkips >= bulkShareEvery) return 2;
    if (this.heads[0]) return 0;
    if (this.heads[1]) return 1;
    return bulkWaiting ? 2 : -1;
  }

  shift(q: QueueIndex): Entry {
    const entry = this.heads[q]!;
    this.heads[q] = entry.next;
    if (!entry.next) this.tails[q] = null;
    entry.next = null;
    this.size--;
    if (q === 2) this.bulkSkips = 0;
    else if (this.heads[2]) this.bulkSkips++;
    return entry;
  }

  /** Every queued entry (for dead-lettering on pause or close). */
  *entries(): Generator<Entry> {
    for (const head of this.heads) for (let cur = head; cur; cur = cur.next) yield cur;
  }
}

export const LANE_IDLE = 0;
export const LANE_READY = 1;
export const LANE_SLEEPING = 2;

/** Per-scope state: a chat, or the one lane of calls that count against no chat. */
export class Lane implements ChatLog {
  /** Arrival bounds of the chat's two most recent calls (-1: none), and older ones when the limit is above 2. */
  recent = -1;
  earlier = -1;
  older: number[] | null = null;
  queues: LaneQueues | null = null;
  /** Nothing from this lane starts before this time (429 pause, retry backoff). */
  pausedUntil = 0;
  /** LANE_IDLE, LANE_READY or LANE_SLEEPING; in-flight chat lanes are idle until the answer. */
  state = LANE_IDLE;
  /** A call of this chat is in flight (chat lanes run one call at a time to keep order). */
  busy = false;
  /** Bumped whenever the lane is (re)placed; older ring and heap entries carrying it are stale. */
  token = 0;

  constructor(readonly chatId: number | undefined) {}
}

/** A growable ring buffer of (lane, token) pairs. */
export class LaneRing {
  private lanes: (Lane | undefined)[] = new Array(16);
  private tokens: number[] = new Array(16).fill(0);
  private head = 0;
  private length = 0;

  get size(): number {
    return this.length;
  }

  push(lane: Lane, token: number): void {
    if (this.length === this.lanes.length) this.grow();
    const i = (this.head + this.length) % this.lanes.length;
    this.lanes[i] = lane;
    this.tokens[i] = token;
    this.length++;
  }

  /** The first entry that is still valid per `isValid`, dropping stale ones; undefined if none. */
  peekValid(isValid: (lane: Lane, token: number) => boolean): Lane | undefined {
    while (this.length > 0) {
      const lane = this.lanes[this.head]!;
      if (isValid(lane, this.tokens[this.head]!)) return lane;
      this.dropHead();
    }
    return undefined;
  }

  /** Token of the head entry (call after peekValid). */
  headToken(): number {
    return this.tokens[this.head]!;
  }

  dropHead(): void {
    this.lanes[this.head] = undefined;
    this.head = (this.head + 1) % this.lanes.length;
    this.length--;
  }

  private grow(): void {
    const lanes: (Lane | undefined)[] = new Array(this.lanes.length * 2);
    const tokens: number[] = new Array(this.lanes.length * 2).fill(0);
    for (let i = 0; i < this.length; i++) {
      const j = (this.head + i) % this.lanes.length;
      lanes[i] = this.lanes[j];
      tokens[i] = this.tokens[j]!;
    }
    this.lanes = lanes;
    this.tokens = tokens;
    this.head = 0;
  }
}

/** Something waiting for a time: a lane (token-checked) or one delayed entry of the unscoped lane. */
export interface Wakeup {
  at: number;
  lane: Lane;
  token: number;
  entry: Entry | null;
}

/** Binary min-heap of wakeups by time. */
export class WakeupHeap {
  private items: Wakeup[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Wakeup | undefined {
    return this.items[0];
  }

  push(item: Wakeup): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]!.at <= item.at) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = item;
  }

  pop(): Wakeup | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= items.length) break;
        const right = left + 1;
        const child = right < items.length && items[right]!.at < items[left]!.at ? right : left;
        if (items[child]!.at >= last.at) break;
        items[i] = items[child]!;
        i = child;
      }
      items[i] = last;
    }
    return top;
  }

  /** Removes every item (close). */
  drain(): Wakeup[] {
    const all = this.items;
    this.items = [];
    return all;
  }
}
