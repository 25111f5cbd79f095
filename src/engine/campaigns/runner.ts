/**
 * The campaign runner: releases the due recipients of running campaigns into the inbox, at each campaign's
 * rate on the engine's clock, behind interactive traffic (it holds back while people wait for answers),
 * with quiet hours in each person's time zone, the frequency cap across campaigns and people who left the
 * bot skipped. One runner sends for all processes: the dispatcher's (on PostgreSQL, the lease holder's).
 *
 * Released entries (kind `campaign`, dedupe key `campaign:<id>:<key>`) and the recipients' statuses are
 * written in one transaction; the planner then starts the flow and settles each recipient in the event's
 * own transaction. A crash anywhere replays at most the planning, never a send.
 */
import type { Logger } from 'pino';
import type {
  CampaignPort,
  CampaignRow,
  DueRecipient,
  ReleaseDecisions,
} from '../../store/campaigns/types.ts';
import { andThen, type MaybePromise } from '../../store/ports/index.ts';
import { CAMPAIGN_KIND, type CampaignEntry, campaignDedupeKey } from '../lane/campaign-entry.ts';
import { isTimeZone } from '../step/wall-clock.ts';
import { quietUntil } from './quiet-hours.ts';
import type { Campaign } from './spec.ts';

export { CAMPAIGN_KIND };

/** What the runner needs. */
export interface CampaignRunnerOptions {
  store: CampaignPort;
  now: () => number;
  logger?: Logger | undefined;
  /** Releases wait while more than this many interactive calls wait in the outbox (default 20). */
  holdAbove?: number;
  /** The campaigns' bulk calls not yet sent, at most (default 2 seconds of the rate, at least 10). */
  bulkAhead?: number;
  /**
   * Requests a second campaigns and interactive calls share (default 25: the platform's 30 less a reserve
   * for calls made outside the outbox). Campaigns take what interactive traffic leaves of it.
   */
  budget?: number;
  /** New entries are in the inbox: plan them. */
  released(): void;
}

/**
 * Interactive calls a second count this much against the campaigns' budget. It was 1.5 while replies
 * shared the scheduler's window and pacing with bulk sends; the scheduler now gives replies room first
 * (client/scheduler/start-gate.ts), so campaigns may take more of what is left (≥ 12/s beside 10 replies/s).
 */
const INTERACTIVE_MARGIN = 1.2;

/** A campaign's release budget: tokens at its rate, at most one second's worth. */
interface Bucket {
  tokens: number;
  at: number;
}

/** Releases due recipients of the running campaigns. */
export class CampaignRunner {
  readonly #o: CampaignRunnerOptions;
  readonly #buckets = new Map<string, Bucket>();
  #busy: Promise<number> | undefined;
  /** The last outbox id seen, and the interactive calls a second written since (smoothed). */
  #outbox: { id: number; at: number; rate: number } | undefined;

  constructor(options: CampaignRunnerOptions) {
    this.#o = options;
  }

  /**
   * One round at `at`: releases what each running campaign may release now; returns how many. On a
   * synchronous store (SQLite) the round is done when this returns, so `engine.tick()` stays synchronous.
   */
  tick(at = this.#o.now()): MaybePromise<number> {
    // One round at a time: a slow database never runs two rounds over the same recipients.
    if (this.#busy)
      return this.#busy.then(
        () => this.tick(at),
        () => this.tick(at), // that round failed (its caller hears why): this one tries again
      );
    const round = this.#round(at);
    if (!(round instanceof Promise)) return round;
    this.#busy = round.finally(() => (this.#busy = undefined));
    return this.#busy;
  }

  #round(at: number): MaybePromise<number> {
    const store = this.#o.store;
    return andThen(store.list(), (all) => {
      const running = all.filter((c) => c.status === 'running' && c.startAt <= at);
      if (running.length === 0) return 0;
      return andThen(store.outboxBacklog(), (backlog) =>
        andThen(this.#interactiveRate(at), (interactive) => {
          if (backlog.interactive > (this.#o.holdAbove ?? 20)) return 0;
          // What interactive traffic leaves of the budget (with a small margin: the scheduler keeps room in
          // the window for replies, and serves every class before bulk first), shared by the campaigns.
          const left =
            Math.max(1, (this.#o.budget ?? 25) - interactive * INTERACTIVE_MARGIN) / running.length;
          let released: MaybePromise<number> = 0;
          for (const row of running)
            released = andThen(released, (sum) =>
              andThen(this.#campaign(row, at, backlog.bulk, left), (n) => sum + n),
            );
          return andThen(released, (n) => {
            if (n > 0) this.#o.released();
            return n;
          });
        }),
      );
    });
  }

  /** Interactive calls written to the outbox per second lately (every process: read from the outbox). */
  #interactiveRate(at: number): MaybePromise<number> {
    const prior = this.#outbox;
    if (!prior)
      // The first round only learns where the outbox ends.
      return andThen(this.#o.store.outboxSince(-1), ({ lastId }) => {
        this.#outbox = { id: lastId, at, rate: 0 };
        return 0;
      });
    const elapsed = Math.max(at - prior.at, 1);
    if (elapsed < 250) return prior.rate;
    return andThen(this.#o.store.outboxSince(prior.id), (seen) => {
      const now = (seen.interactive * 1000) / elapsed;
      this.#outbox = { id: seen.lastId, at, rate: prior.rate * 0.5 + now * 0.5 };
      return this.#outbox.rate;
    });
  }

  #campaign(row: CampaignRow, at: number, bulk: number, share: number): MaybePromise<number> {
    const store = this.#o.store;
    const spec = JSON.parse(row.spec) as Campaign;
    const campaign = { ...spec, rate: Math.min(spec.rate, share) };
    const bucket = this.#buckets.get(row.id) ?? { tokens: 1, at };
    bucket.tokens = Math.min(
      Math.max(1, campaign.rate),
      bucket.tokens + (Math.max(0, at - bucket.at) * campaign.rate) / 1000,
    );
    bucket.at = Math.max(bucket.at, at);
    this.#buckets.set(row.id, bucket);
    if (bulk > (this.#o.bulkAhead ?? Math.max(10, campaign.rate * 2))) return 0;
    const allowed = Math.floor(bucket.tokens);
    return andThen(store.settleFailed(row.id, at), () => {
      if (allowed === 0) return 0;
      const capSince = campaign.cap ? at - campaign.cap.perMs : at + 1;
      return andThen(store.due(row.id, at, allowed * 4 + 20, capSince), (due) => {
        if (due.length === 0) return andThen(this.#finish(row, at), () => 0);
        const decisions = this.#decide(row, campaign, due, at, allowed);
        return andThen(store.release(row.id, decisions, at), () => {
          bucket.tokens -= decisions.release.length;
          return decisions.release.length;
        });
      });
    });
  }

  /** Marks the campaign done when no recipient is queued or released any more. */
  #finish(row: CampaignRow, at: number): MaybePromise<void> {
    const store = this.#o.store;
    return andThen(store.queued(row.id), (left) => {
      if (left.n > 0 || left.released > 0) return;
      return andThen(store.setStatus(row.id, ['running'], 'done', at), (moved) => {
        if (moved) this.#o.logger?.info({ campaign: row.id }, 'campaign finished: every recipient settled');
      });
    });
  }

  #decide(row: CampaignRow, c: Campaign, due: DueRecipient[], at: number, allowed: number): ReleaseDecisions {
    const out: ReleaseDecisions = { release: [], skip: [], defer: [] };
    for (const r of due) {
      const key = r.conversationKey;
      if (r.left) {
        out.skip.push({ conversationKey: key, reason: 'left: stopped the bot or removed the dialog' });
        continue;
      }
      if (c.cap && r.recentSends >= c.cap.max) {
        out.skip.push({
          conversationKey: key,
          reason: `cap: ${r.recentSends} campaign messages in the window`,
        });
        continue;
      }
      if (c.quiet) {
        const tz = isTimeZone(r.timeZone) ? r.timeZone : c.quiet.timeZone;
        const until = quietUntil(at, c.quiet, tz);
        if (until !== undefined) {
          out.defer.push({ conversationKey: key, notBefore: until });
          continue;
        }
      }
      if (out.release.length >= allowed) continue;
      const entry: CampaignEntry = {
        campaign: row.id,
        flow: c.flow,
        with: c.with,
        userId: r.userId,
        chatId: r.chatId,
        locale: r.locale,
        busyMs: c.busyMs,
      };
      out.release.push({
        conversationKey: key,
        dedupeKey: campaignDedupeKey(row.id, key),
        payload: JSON.stringify(entry),
      });
    }
    return out;
  }
}
