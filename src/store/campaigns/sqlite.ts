/**
 * The campaign store on SQLite (queries.ts has the statements both databases share). Every answer is
 * immediate; `release` is one transaction: the inbox entries and the recipients' statuses together.
 */
import type Database from 'better-sqlite3';
import { figuresOf, stepKeyOfValue } from './facts.ts';
import {
  BACKLOG_SQL,
  CAMPAIGN_COLUMNS,
  countSql,
  DUE_SQL,
  FUNNEL_SQL,
  matchSql,
  OUTBOX_END_SQL,
  OUTBOX_SINCE_SQL,
  QUEUED_SQL,
  REASONS_SQL,
  RECIPIENTS_SQL,
  SETTLE_FAILED_SQL,
  STATUS_SQL,
  snapshotSql,
} from './queries.ts';
import type { CampaignPort, CampaignRow, DueRecipient, PersonFacts, RecipientRow } from './types.ts';

/** A new campaign and the snapshot of its recipients, in one transaction. */
function createTransaction(db: Database.Database): CampaignPort['create'] {
  const insertCampaign = db.prepare(
    'INSERT INTO campaigns (id, name, flow_id, spec, status, recipients, created_at, start_at, updated_at) ' +
      'VALUES (@id, @name, @flowId, @spec, @status, 0, @createdAt, @startAt, @createdAt)',
  );
  return db.transaction((campaign: Omit<CampaignRow, 'recipients' | 'updatedAt'>, segment, timeZoneVar) => {
    insertCampaign.run(campaign);
    const snap = snapshotSql(
      'sqlite',
      campaign.id,
      segment,
      campaign.createdAt,
      campaign.startAt,
      timeZoneVar,
    );
    const n = db.prepare(snap.text).run(...snap.params).changes;
    db.prepare('UPDATE campaigns SET recipients = ? WHERE id = ?').run(n, campaign.id);
    return n;
  }) as CampaignPort['create'];
}

/** Released entries into the inbox, skipped and deferred ones marked: one transaction. */
function releaseTransaction(db: Database.Database): CampaignPort['release'] {
  const insertEntry = db.prepare(
    "INSERT INTO inbox (kind, dedupe_key, conversation_key, payload, received_at) VALUES ('campaign', ?, ?, ?, ?) " +
      'ON CONFLICT (dedupe_key) DO NOTHING',
  );
  const released = db.prepare(
    "UPDATE campaign_recipients SET status = 'released', released_at = ? WHERE campaign_id = ? AND conversation_key = ? AND status = 'queued'",
  );
  const skipped = db.prepare(
    "UPDATE campaign_recipients SET status = 'skipped', reason = ?, settled_at = ? WHERE campaign_id = ? AND conversation_key = ? AND status = 'queued'",
  );
  const deferred = db.prepare(
    "UPDATE campaign_recipients SET not_before = ? WHERE campaign_id = ? AND conversation_key = ? AND status = 'queued'",
  );
  return db.transaction((id: string, decisions, now: number) => {
    for (const r of decisions.release) {
      insertEntry.run(r.dedupeKey, r.conversationKey, r.payload, now);
      released.run(now, id, r.conversationKey);
    }
    for (const r of decisions.skip) skipped.run(r.reason, now, id, r.conversationKey);
    for (const r of decisions.defer) deferred.run(r.notBefore, id, r.conversationKey);
  }) as CampaignPort['release'];
}

/** The campaign store over `db`. */
export function sqliteCampaigns(db: Database.Database): CampaignPort {
  const release = releaseTransaction(db);
  const create = createTransaction(db);
  return {
    match(segment, now, sample, timeZoneVar) {
      const count = countSql('sqlite', segment, now);
      const { n } = db.prepare(count.text).get(...count.params) as { n: number };
      const rows = matchSql('sqlite', segment, now, timeZoneVar);
      const found = db.prepare(`${rows.text} LIMIT ?`).all(...rows.params, sample) as (PersonFacts & {
        stateValue: string;
      })[];
      return { count: n, sample: found.map(stepKeyOfValue) };
    },
    create,
    get: (id) =>
      db.prepare(`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns WHERE id = ?`).get(id) as CampaignRow | undefined,
    list: () =>
      db.prepare(`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns ORDER BY created_at, id`).all() as CampaignRow[],
    setStatus(id, from, to, now) {
      const info = db
        .prepare(
          `UPDATE campaigns SET status = ?, updated_at = ? WHERE id = ? AND status IN (${from.map(() => '?').join(', ')})`,
        )
        .run(to, now, id, ...from);
      return info.changes === 1;
    },
    due(id, now, limit, capSince) {
      const rows = db.prepare(DUE_SQL).all(capSince, id, now, limit) as (Omit<DueRecipient, 'left'> & {
        left: number;
      })[];
      return rows.map((r) => ({ ...r, left: Boolean(r.left) }));
    },
    release,
    settleFailed: (id, now) => db.prepare(SETTLE_FAILED_SQL).run(now, id).changes,
    queued(id) {
      const r = db.prepare(QUEUED_SQL).get(id) as {
        n: number | null;
        at: number | null;
        released: number | null;
      };
      return { n: r.n ?? 0, nextAt: r.at ?? undefined, released: r.released ?? 0 };
    },
    figures(id) {
      const c = db.prepare('SELECT flow_id AS f, created_at AS at FROM campaigns WHERE id = ?').get(id) as
        | { f: string; at: number }
        | undefined;
      return figuresOf(
        db.prepare(STATUS_SQL).all(id) as { status: string; n: number }[],
        db.prepare(REASONS_SQL).all(id) as { reason: string | null; n: number }[],
        db.prepare(FUNNEL_SQL).get(id, id, c?.f ?? null, c?.at ?? 0) as Record<string, number | null>,
      );
    },
    recipients: (id, query) =>
      db
        .prepare(RECIPIENTS_SQL)
        .all(id, query.status ?? null, query.status ?? null, query.limit ?? 100) as RecipientRow[],
    outboxSince(afterId) {
      const r = db.prepare(afterId < 0 ? OUTBOX_END_SQL : OUTBOX_SINCE_SQL).get(afterId) as {
        last: number | null;
        interactive: number | null;
      };
      return { lastId: r.last ?? afterId, interactive: r.interactive ?? 0 };
    },
    outboxBacklog() {
      const r = db.prepare(BACKLOG_SQL).get() as { interactive: number | null; bulk: number | null };
      return { interactive: r.interactive ?? 0, bulk: r.bulk ?? 0 };
    },
  };
}
