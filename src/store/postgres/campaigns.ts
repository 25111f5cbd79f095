/**
 * The campaign store on PostgreSQL (store/campaigns/queries.ts has the statements both databases share,
 * numbered here). `create` and `release` are one transaction each; released entries are announced on the
 * inbox channel so the process owning the person's partition plans them at once.
 */
import type pg from 'pg';
import { figuresOf, stepKeyOfValue } from '../campaigns/facts.ts';
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
} from '../campaigns/queries.ts';
import { numbered, type Sql } from '../campaigns/segment-sql.ts';
import type {
  CampaignPort,
  CampaignRow,
  DueRecipient,
  PersonFacts,
  RecipientRow,
} from '../ports/campaigns.ts';
import { partitionOf } from '../ports/partitions.ts';
import { inTransaction } from './transaction.ts';

const N = (v: unknown) => (v === null || v === undefined ? null : Number(v));

const campaignOf = (r: Record<string, unknown>): CampaignRow => ({
  ...(r as unknown as CampaignRow),
  recipients: Number(r.recipients),
  createdAt: Number(r.createdAt),
  startAt: Number(r.startAt),
  updatedAt: Number(r.updatedAt),
});

type Port = CampaignPort;

/** A new campaign and the snapshot of its recipients, in one transaction; the number of recipients. */
async function insertCampaign(
  client: pg.PoolClient,
  campaign: Parameters<Port['create']>[0],
  segment: Parameters<Port['create']>[1],
  timeZoneVar: Parameters<Port['create']>[2],
): Promise<number> {
  await client.query(
    'INSERT INTO campaigns (id, name, flow_id, spec, status, recipients, created_at, start_at, updated_at) ' +
      'VALUES ($1, $2, $3, $4, $5, 0, $6, $7, $6)',
    [
      campaign.id,
      campaign.name,
      campaign.flowId,
      campaign.spec,
      campaign.status,
      campaign.createdAt,
      campaign.startAt,
    ],
  );
  const snap = snapshotSql(
    'postgres',
    campaign.id,
    segment,
    campaign.createdAt,
    campaign.startAt,
    timeZoneVar,
  );
  const { rowCount } = await client.query(numbered(snap.text), snap.params);
  await client.query('UPDATE campaigns SET recipients = $1 WHERE id = $2', [rowCount ?? 0, campaign.id]);
  return rowCount ?? 0;
}

/** Released entries into the inbox (announced on its channel), skipped and deferred ones marked. */
async function releaseDecisions(
  client: pg.PoolClient,
  id: string,
  decisions: Parameters<Port['release']>[1],
  now: number,
): Promise<void> {
  const keys = decisions.release.map((r) => r.conversationKey);
  if (keys.length > 0) {
    await client.query(
      'INSERT INTO inbox (partition, kind, dedupe_key, conversation_key, payload, received_at) ' +
        "SELECT p, 'campaign', d, k, j, $5 FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) AS x(p, d, k, j) " +
        'ON CONFLICT (dedupe_key) DO NOTHING',
      [
        keys.map(partitionOf),
        decisions.release.map((r) => r.dedupeKey),
        keys,
        decisions.release.map((r) => r.payload),
        now,
      ],
    );
    await client.query(
      "UPDATE campaign_recipients SET status = 'released', released_at = $3 WHERE campaign_id = $1 " +
        "AND conversation_key = ANY ($2::text[]) AND status = 'queued'",
      [id, keys, now],
    );
    await client.query(`SELECT pg_notify(botflow_channel('inbox'), '')`);
  }
  if (decisions.skip.length > 0)
    await client.query(
      "UPDATE campaign_recipients r SET status = 'skipped', reason = x.reason, settled_at = $4 " +
        'FROM unnest($2::text[], $3::text[]) AS x(k, reason) ' +
        "WHERE r.campaign_id = $1 AND r.conversation_key = x.k AND r.status = 'queued'",
      [id, decisions.skip.map((r) => r.conversationKey), decisions.skip.map((r) => r.reason), now],
    );
  if (decisions.defer.length > 0)
    await client.query(
      'UPDATE campaign_recipients r SET not_before = x.at FROM unnest($2::text[], $3::bigint[]) AS x(k, at) ' +
        "WHERE r.campaign_id = $1 AND r.conversation_key = x.k AND r.status = 'queued'",
      [id, decisions.defer.map((r) => r.conversationKey), decisions.defer.map((r) => r.notBefore)],
    );
}

/** The campaign store over `pool`. */
export function pgCampaigns(pool: pg.Pool): CampaignPort {
  const q = (sql: string, params: unknown[] = []) => pool.query(numbered(sql), params);
  const run = (s: Sql) => pool.query(numbered(s.text), s.params);
  return {
    async match(segment, now, sample, timeZoneVar) {
      const { rows: counted } = await run(countSql('postgres', segment, now));
      const m = matchSql('postgres', segment, now, timeZoneVar);
      const { rows } = await pool.query(
        `${numbered(m.text)} LIMIT ${Math.max(0, Math.floor(sample))}`,
        m.params,
      );
      return {
        count: Number(counted[0]?.n ?? 0),
        sample: rows.map((r) => stepKeyOfValue(r as PersonFacts & { stateValue: string })),
      };
    },
    create: (campaign, segment, timeZoneVar) =>
      inTransaction(pool, (client) => insertCampaign(client, campaign, segment, timeZoneVar)),
    async get(id) {
      const { rows } = await q(`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns WHERE id = ?`, [id]);
      return rows[0] ? campaignOf(rows[0]) : undefined;
    },
    async list() {
      const { rows } = await q(`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns ORDER BY created_at, id`);
      return rows.map(campaignOf);
    },
    async setStatus(id, from, to, now) {
      const { rowCount } = await q(
        'UPDATE campaigns SET status = ?, updated_at = ? WHERE id = ? AND status = ANY (?)',
        [to, now, id, from],
      );
      return rowCount === 1;
    },
    async due(id, now, limit, capSince) {
      const { rows } = await q(DUE_SQL, [capSince, id, now, limit]);
      return rows.map(
        (r): DueRecipient => ({
          conversationKey: r.conversationKey,
          userId: N(r.userId),
          chatId: N(r.chatId),
          locale: r.locale,
          timeZone: r.timeZone,
          recentSends: Number(r.recentSends),
          left: Number(r.left) === 1,
        }),
      );
    },
    release: (id, decisions, now) =>
      inTransaction(pool, (client) => releaseDecisions(client, id, decisions, now)),
    async settleFailed(id, now) {
      const { rowCount } = await q(SETTLE_FAILED_SQL, [now, id]);
      return rowCount ?? 0;
    },
    async queued(id) {
      const { rows } = await q(QUEUED_SQL, [id]);
      return {
        n: Number(rows[0]?.n ?? 0),
        nextAt: N(rows[0]?.at) ?? undefined,
        released: Number(rows[0]?.released ?? 0),
      };
    },
    async figures(id) {
      const c = (await q('SELECT flow_id AS f, created_at AS at FROM campaigns WHERE id = ?', [id])).rows[0];
      const [statuses, reasons, funnel] = await Promise.all([
        q(STATUS_SQL, [id]),
        q(REASONS_SQL, [id]),
        q(FUNNEL_SQL, [id, id, c?.f ?? null, c?.at ?? 0]),
      ]);
      return figuresOf(statuses.rows, reasons.rows, funnel.rows[0]);
    },
    async recipients(id, query) {
      const { rows } = await q(RECIPIENTS_SQL, [
        id,
        query.status ?? null,
        query.status ?? null,
        query.limit ?? 100,
      ]);
      return rows.map(
        (r): RecipientRow => ({
          ...(r as RecipientRow),
          userId: N(r.userId),
          notBefore: Number(r.notBefore),
          releasedAt: N(r.releasedAt),
          settledAt: N(r.settledAt),
        }),
      );
    },
    async outboxSince(afterId) {
      const { rows } = await q(afterId < 0 ? OUTBOX_END_SQL : OUTBOX_SINCE_SQL, [afterId]);
      return { lastId: N(rows[0]?.last) ?? afterId, interactive: Number(rows[0]?.interactive ?? 0) };
    },
    async outboxBacklog() {
      const { rows } = await q(BACKLOG_SQL);
      return { interactive: Number(rows[0]?.interactive ?? 0), bulk: Number(rows[0]?.bulk ?? 0) };
    },
  };
}
