/**
 * Durable timers at run time: moving due timers into the inbox (as `timer` events that run in the
 * conversation's order like any update), and the grace rule applied once when the engine starts, so that
 * timers that came due while the process was down neither wake everyone at once nor fire days late.
 */
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { EngineInbox } from './engine-inbox.ts';
import type { GraceReport, TimerGrace } from './ports/rows.ts';
import { TimerStore } from './timers.ts';

export type { GraceReport, TimerGrace } from './ports/rows.ts';

/** Timer firing and restart recovery over one database. */
export class TimerService {
  readonly #timers: TimerStore;
  readonly #inbox: EngineInbox;
  readonly #fire: Database.Transaction<(now: number, limit: number) => number>;
  readonly #grace: Required<TimerGrace>;
  readonly #logger: Logger | undefined;
  readonly #recover: Database.Transaction<(now: number) => GraceReport>;

  constructor(db: Database.Database, grace: TimerGrace = {}, logger?: Logger) {
    this.#timers = new TimerStore(db);
    this.#inbox = new EngineInbox(db);
    this.#logger = logger;
    this.#grace = {
      toleranceMs: grace.toleranceMs ?? 60_000,
      maxLateMs: grace.maxLateMs ?? 6 * 3_600_000,
      perSecond: Math.max(0.001, grace.perSecond ?? 10),
    };
    this.#fire = db.transaction((now: number, limit: number) => {
      const due = this.#timers.due(now, limit);
      for (const timer of due) {
        if (!this.#timers.markFired(timer.id, now)) continue;
        this.#inbox.add({
          kind: 'timer',
          dedupeKey: `timer:${timer.id}`,
          conversationKey: timer.conversationKey,
          payload: JSON.stringify({
            timerId: timer.id,
            name: timer.name,
            stepInstance: timer.stepInstance,
            dueAt: timer.dueAt,
            fireAt: timer.fireAt,
          }),
          receivedAt: now,
        });
      }
      return due.length;
    });
    this.#recover = db.transaction((now: number) => {
      const { toleranceMs, maxLateMs, perSecond } = this.#grace;
      const report: GraceReport = { postponed: 0, expired: 0 };
      for (const timer of this.#timers.overdue(now - toleranceMs)) {
        const late = now - timer.fireAt;
        if (late > maxLateMs) {
          this.#timers.expire(
            timer.id,
            `came due ${Math.round(late / 60_000)} min before the engine started`,
            now,
          );
          report.expired++;
        } else {
          this.#timers.postpone(timer.id, now + Math.floor((report.postponed * 1000) / perSecond));
          report.postponed++;
        }
      }
      return report;
    });
  }

  /**
   * Applies the grace rule to timers that came due while nothing ran (call once per start, before firing).
   * Timers a little late fire now; later ones are spread out; very old ones expire.
   */
  recover(now: number): GraceReport {
    const report = this.#recover.immediate(now);
    if (report.postponed + report.expired > 0) {
      this.#logger?.info(report, 'timers that came due while the engine was down: spread out or expired');
    }
    return report;
  }

  /** Moves timers due at `now` into the inbox as `timer` events (at most `limit`); returns how many. */
  fireDue(now: number, limit = 1000): number {
    return this.#fire.immediate(now, limit);
  }

  /** The earliest firing time of an armed timer. */
  nextFireAt(): number | undefined {
    return this.#timers.nextFireAt();
  }
}
