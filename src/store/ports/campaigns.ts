/**
 * Campaigns as the store sees them: the segment (who), the campaign row, its recipients, and the port both
 * adapters implement (store/campaigns/sqlite.ts, store/postgres/campaigns.ts). docs/campaigns.md.
 */
import type { MaybePromise } from './index.ts';

/** A saved variable's condition: a value it equals, or bounds / a list. */
export type VarCondition =
  | string
  | number
  | boolean
  | null
  | { gt?: number | string; lt?: number | string; in?: (string | number | boolean)[] };

/** Who a campaign reaches, as the store queries it (durations already in ms). */
export interface Segment {
  tags?: { all?: string[]; any?: string[]; none?: string[] };
  /** Saved variables of the person's latest session. */
  vars?: Record<string, VarCondition>;
  locale?: string[];
  /** Talked to the bot (their session moved) within this many ms. */
  activeWithinMs?: number;
  /** Silent for at least this many ms. */
  inactiveForMs?: number;
  /** How a flow went for them: finished it (or never did), or its last step they were at. */
  flow?: { id: string; finished?: boolean; endedAt?: string };
}

/** One person as a segment sees them. */
export interface PersonFacts {
  conversationKey: string;
  userId: number | null;
  chatId: number | null;
  locale: string | null;
  lastActiveAt: number;
  /** Flow and step of their latest session. */
  flowId: string;
  step: string;
  /** The value of the campaign's time-zone variable in their latest session, if any. */
  timeZone: string | null;
}

export type CampaignStatus = 'running' | 'paused' | 'cancelled' | 'done';
export type RecipientStatus = 'queued' | 'released' | 'sent' | 'failed' | 'skipped';

/** A stored campaign. `spec` is the campaign as started (JSON of `CampaignSpec`, engine/campaigns). */
export interface CampaignRow {
  id: string;
  name: string;
  flowId: string;
  spec: string;
  status: CampaignStatus;
  recipients: number;
  createdAt: number;
  startAt: number;
  updatedAt: number;
}

/** A queued recipient due for release, with what the release rules read. */
export interface DueRecipient {
  conversationKey: string;
  userId: number | null;
  chatId: number | null;
  locale: string | null;
  timeZone: string | null;
  /** Campaign messages released to them since the cap's window began (every campaign). */
  recentSends: number;
  /** They stopped the bot or removed the dialog and have not talked to it since. */
  left: boolean;
}

/** What the runner decided for due recipients, written in one transaction. */
export interface ReleaseDecisions {
  /** Released: their inbox entry (`kind` campaign, dedupe key, payload) goes in with the status change. */
  release: { conversationKey: string; dedupeKey: string; payload: string }[];
  skip: { conversationKey: string; reason: string }[];
  /** Quiet hours: back in line at `notBefore`. */
  defer: { conversationKey: string; notBefore: number }[];
}

/** A campaign's figures. */
export interface CampaignFigures {
  byStatus: Record<RecipientStatus, number>;
  /** Skipped and failed recipients by reason (the reason's first word: `cap`, `quiet`, `left`, `busy`…). */
  reasons: Record<string, number>;
  /** Sent: the flow's first step went out. Started: they moved past it. Finished: they reached its end. */
  funnel: { reached: number; started: number; finished: number };
}

/** One recipient's line. */
export interface RecipientRow {
  conversationKey: string;
  userId: number | null;
  status: RecipientStatus;
  reason: string | null;
  notBefore: number;
  releasedAt: number | null;
  settledAt: number | null;
}

/** The campaign store, on either database. */
export interface CampaignPort {
  /** How many people `segment` matches now, and the first `sample` of them. */
  match(
    segment: Segment,
    now: number,
    sample: number,
    timeZoneVar?: string,
  ): MaybePromise<{ count: number; sample: PersonFacts[] }>;
  /** Stores `campaign` and snapshots its segment into queued recipients (one transaction); returns their count. */
  create(
    campaign: Omit<CampaignRow, 'recipients' | 'updatedAt'>,
    segment: Segment,
    timeZoneVar: string | undefined,
  ): MaybePromise<number>;
  get(id: string): MaybePromise<CampaignRow | undefined>;
  list(): MaybePromise<CampaignRow[]>;
  /** Moves `id` to `to` when its status is one of `from`; false when it was not. */
  setStatus(id: string, from: CampaignStatus[], to: CampaignStatus, now: number): MaybePromise<boolean>;
  /** Up to `limit` queued recipients of `id` due at `now`; `capSince`: the start of the cap's window. */
  due(id: string, now: number, limit: number, capSince: number): MaybePromise<DueRecipient[]>;
  /** Writes `decisions` (inbox entries and recipient statuses) in one transaction. */
  release(id: string, decisions: ReleaseDecisions, now: number): MaybePromise<void>;
  /** Released recipients whose entry failed (the flow threw): marked failed with the reason. Returns how many. */
  settleFailed(id: string, now: number): MaybePromise<number>;
  /** Queued recipients left, and the earliest time one may be released. */
  queued(id: string): MaybePromise<{ n: number; nextAt: number | undefined; released: number }>;
  figures(id: string): MaybePromise<CampaignFigures>;
  recipients(id: string, query: { status?: RecipientStatus; limit?: number }): MaybePromise<RecipientRow[]>;
  /** Outbox calls waiting to go out: `interactive` (people waiting for an answer) and `bulk`. */
  outboxBacklog(): MaybePromise<{ interactive: number; bulk: number }>;
  /** Outbox calls written after id `afterId`: the last id, and how many of them are not `bulk` (below 0: only the last id). */
  outboxSince(afterId: number): MaybePromise<{ lastId: number; interactive: number }>;
}
