/**
 * Putting entries into their lanes' FIFOs and taking them out, with the queue counts kept right; and the
 * coalescing of chat actions: one "typing…" per chat waits, never a pile of stale ones.
 */
import { type Entry, type Lane, LaneQueues, WHERE } from './chat-queues.ts';
import type { LaneBoard } from './lane-board.ts';
import type { MetricsRecorder } from './metrics.ts';
import { DeadLetterError } from './types.ts';

/** A queued chat action of `entry`'s chat doing the same (`typing_on`…), when `entry` is one. */
export function queuedActionLike(lane: Lane, entry: Entry): Entry | undefined {
  if (entry.op !== 'sendAction' || !lane.queues) return undefined;
  for (const queued of lane.queues.entries())
    if (queued.op === 'sendAction' && queued.args.action === entry.args.action) return queued;
  return undefined;
}

/** The scheduler's FIFO bookkeeping. */
export class LaneQueueing {
  constructor(
    private readonly recorder: MetricsRecorder,
    private readonly board: LaneBoard,
    private readonly settle: (entry: Entry) => void,
  ) {}

  /** Puts an entry in its lane's FIFO: at the tail when new, at the head when it is a retry. */
  requeue(entry: Entry, atHead: boolean): void {
    const lane = entry.lane!;
    if (!lane.queues) {
      lane.queues = new LaneQueues();
      this.board.lanesWithWork++;
    }
    if (atHead) lane.queues.unshift(entry);
    else lane.queues.push(entry);
    entry.where = WHERE.queued;
    this.recorder.queuedByPriority[entry.classIndex]!++;
  }

  /** Takes a queued entry out of its FIFO; false when it was not there. */
  unqueue(entry: Entry): boolean {
    const queues = entry.lane?.queues;
    if (!queues?.remove(entry)) return false;
    this.recorder.queuedByPriority[entry.classIndex]!--;
    return true;
  }

  /**
   * A newer chat action takes the place of a queued one for the same chat (same FIFO: its place in
   * line). The older job is settled as `superseded` (no dead letter: nothing failed) and counted in
   * `metrics().chatActions.coalesced`.
   */
  coalesce(older: Entry, entry: Entry): void {
    const queues = older.lane!.queues!;
    if (queues.replace(older, entry)) {
      this.recorder.queuedByPriority[older.classIndex]!--;
      this.recorder.queuedByPriority[entry.classIndex]!++;
      entry.where = WHERE.queued;
    } else {
      this.unqueue(older);
      this.requeue(entry, false);
    }
    this.recorder.chatActions.coalesced++;
    this.settle(older);
    older.reject(
      new DeadLetterError(
        'superseded',
        older.op,
        older.chatId,
        undefined,
        'a newer chat action for the same chat took its place in the queue',
      ),
    );
  }
}
