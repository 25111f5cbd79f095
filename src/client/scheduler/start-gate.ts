/**
 * When the next call may start as far as the global scope goes, by class. Every call waits for room in the
 * window (the platform's limit) and for any global pause. Pacing spreads starts one window/limit apart so
 * that the window is not spent in one burst; calls of the classes before `bulk` are paced among
 * themselves only (a reply never waits behind a campaign send that just started), while bulk calls are
 * paced behind every start and leave `reserve` places of the window free, so that a person's reply finds
 * room at once even while a campaign runs at full rate.
 */
import type { SlidingWindowLog } from './sliding-window.ts';

export class StartGate {
  /** Earliest start the pacing schedule allows, every class counted (bulk waits for it). */
  #pacedAt = Number.NEGATIVE_INFINITY;
  /** The same, counting only the starts of classes before bulk (they wait for it). */
  #urgentPacedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly log: SlidingWindowLog,
    private readonly pacing: boolean,
    /** Places of the window bulk calls leave to the other classes. */
    private readonly reserve: number,
  ) {}

  /** When a call may start: of a class before bulk (`bulk` false), or a bulk one; not before `now`. */
  freeAt(now: number, pausedUntil: number, bulk: boolean): number {
    const window = this.log.nextFreeAt(now);
    if (!bulk) return Math.max(pausedUntil, window, this.pacing ? this.#urgentPacedAt : now, now);
    const spacing = this.log.windowMs / this.log.limit;
    const reserveAt = this.log.usedAt(now) < this.log.limit - this.reserve ? now : now + spacing;
    return Math.max(pausedUntil, window, this.pacing ? this.#pacedAt : now, reserveAt, now);
  }

  /** A call started at `now`. The schedule advances one slot per start; after a late timer it may catch up by two slots. */
  started(now: number, bulk: boolean): void {
    const spacing = this.log.windowMs / this.log.limit;
    this.#pacedAt = Math.max(this.#pacedAt + spacing, now - spacing);
    if (!bulk) this.#urgentPacedAt = Math.max(this.#urgentPacedAt + spacing, now - spacing);
  }
}
