/**
 * A clean handover of the dispatcher role between processes. The platform's limits are per bot and per
 * second, and each dispatcher's scheduler sees only its own calls, so the one that stops hands over its last
 * second of calls (`RecentCalls`: when each was answered, and its chat) and the next one counts them
 * (`HandoverGate`) instead of pausing a whole second: it sends at once, within what that second left.
 */
import type { HandedSend } from '../store/ports/leases.ts';

/** How long a call counts against the limits after its answer (a second, and a margin for clocks). */
export const HANDOVER_WINDOW_MS = 1100;
/** Calls a new dispatcher starts in its first window, the previous one's included: 28/s less the polls a stopping process may have made. */
const HANDOVER_LIMIT = 24;
/** A call still unanswered at the handover counts as answered this far in the future (it may arrive late). */
const OPEN_CALL_AGO_MS = -1000;

/** The calls this dispatcher made lately: when each was answered, and those still open. */
export class RecentCalls {
  #answered: { at: number; chatId: number | undefined }[] = [];
  readonly #open = new Map<number, number | undefined>();
  #seq = 0;

  /** A call goes out; returns its handle for `end`. */
  begin(chatId: number | undefined): number {
    const id = ++this.#seq;
    this.#open.set(id, chatId);
    return id;
  }

  /** The call `id` was answered (or failed) at `at`. */
  end(id: number, at: number): void {
    const chatId = this.#open.get(id);
    this.#open.delete(id);
    this.#answered.push({ at, chatId });
    if (this.#answered.length > 512)
      this.#answered = this.#answered.filter((c) => c.at > at - HANDOVER_WINDOW_MS);
  }

  /** What to hand over at `now`: the calls of the last window, and those still open. */
  handover(now: number): HandedSend[] {
    const sends: HandedSend[] = [];
    const add = (agoMs: number, chatId: number | undefined) =>
      sends.push({ agoMs, ...(chatId !== undefined ? { chatId } : {}) });
    for (const c of this.#answered) if (c.at > now - HANDOVER_WINDOW_MS) add(now - c.at, c.chatId);
    for (const chatId of this.#open.values()) add(OPEN_CALL_AGO_MS, chatId);
    return sends;
  }
}

/** The first window of a dispatcher that took over cleanly: the previous one's calls still count. */
export class HandoverGate {
  /** The previous dispatcher's calls (when they count from) and this one's starts, ms on this clock. */
  readonly #theirs: { at: number; chatId: number | undefined }[];
  readonly #ours: number[] = [];
  readonly #until: number;

  constructor(sends: readonly HandedSend[], now: number) {
    this.#theirs = sends.map((s) => ({ at: now - s.agoMs, chatId: s.chatId }));
    this.#until = Math.max(now, ...this.#theirs.map((t) => t.at)) + HANDOVER_WINDOW_MS;
  }

  /** The previous dispatcher's calls no longer count: the gate can go. */
  over(now: number): boolean {
    return now >= this.#until;
  }

  /** Calls that may start now. */
  room(now: number): number {
    const since = now - HANDOVER_WINDOW_MS;
    const used =
      this.#theirs.filter((t) => t.at > since).length + this.#ours.filter((at) => at > since).length;
    return Math.max(0, HANDOVER_LIMIT - used);
  }

  /** Counts `n` calls started now. */
  take(now: number, n: number): void {
    for (let i = 0; i < n; i++) this.#ours.push(now);
  }

  /** When the room is next more than none. */
  nextFreeAt(now: number): number {
    const stamps = [...this.#theirs.map((t) => t.at), ...this.#ours]
      .filter((at) => at > now - HANDOVER_WINDOW_MS)
      .sort((a, b) => a - b);
    const excess = stamps.length - HANDOVER_LIMIT;
    return excess < 0 ? now : stamps[excess]! + HANDOVER_WINDOW_MS;
  }

  /** When a call to `chatId` may start: once the previous dispatcher's calls to it no longer count. */
  chatFreeAt(chatId: number | null, now: number): number {
    if (chatId === null) return now;
    const theirs = this.#theirs.filter((t) => t.chatId === chatId && t.at > now - HANDOVER_WINDOW_MS);
    // This scheduler may start the chat's limit of calls at once: theirs must no longer count.
    return theirs.length === 0 ? now : Math.max(...theirs.map((t) => t.at)) + HANDOVER_WINDOW_MS;
  }
}
