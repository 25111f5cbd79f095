/**
 * The campaign statements both adapters run (their `?` numbered for PostgreSQL): the text is the same,
 * only the JSON functions differ (segment-sql.ts).
 */
import { type Dialect, type Sql, segmentWhere, varText } from './segment-sql.ts';
import type { Segment } from './types.ts';

/** The people `segment` matches: their facts, in conversation order. */
export function matchSql(d: Dialect, segment: Segment, now: number, timeZoneVar: string | undefined): Sql {
  const where = segmentWhere(d, segment, now);
  const tz = varText(d, timeZoneVar);
  return {
    text:
      'SELECT s.conversation_key AS "conversationKey", s.user_id AS "userId", s.chat_id AS "chatId", ' +
      `s.locale AS locale, s.updated_at AS "lastActiveAt", s.flow_id AS "flowId", s.state_value AS "stateValue", ` +
      `${tz.text} AS "timeZone" FROM sessions s WHERE ${where.text} ORDER BY s.conversation_key`,
    params: [...tz.params, ...where.params],
  };
}

/** How many people `segment` matches. */
export function countSql(d: Dialect, segment: Segment, now: number): Sql {
  const where = segmentWhere(d, segment, now);
  return { text: `SELECT count(*) AS n FROM sessions s WHERE ${where.text}`, params: where.params };
}

/** Snapshots the people `segment` matches into queued recipients of campaign `id`, due from `startAt`. */
export function snapshotSql(
  d: Dialect,
  id: string,
  segment: Segment,
  now: number,
  startAt: number,
  timeZoneVar: string | undefined,
): Sql {
  const where = segmentWhere(d, segment, now);
  const tz = varText(d, timeZoneVar);
  return {
    text:
      'INSERT INTO campaign_recipients (campaign_id, conversation_key, user_id, chat_id, locale, time_zone, not_before) ' +
      `SELECT ?, s.conversation_key, s.user_id, s.chat_id, s.locale, ${tz.text}, ? FROM sessions s WHERE ${where.text}`,
    params: [id, ...tz.params, startAt, ...where.params],
  };
}

/**
 * Queued recipients due at `now` (the cap counts campaign messages released to the person since `capSince`,
 * every campaign; `left`: they stopped the bot and have not talked to it since).
 */
export const DUE_SQL =
  'SELECT r.conversation_key AS "conversationKey", r.user_id AS "userId", r.chat_id AS "chatId", r.locale AS locale, ' +
  'r.time_zone AS "timeZone", ' +
  "(SELECT count(*) FROM campaign_recipients o WHERE o.conversation_key = r.conversation_key AND o.status IN ('released', 'sent') " +
  'AND o.released_at >= ?) AS "recentSends", ' +
  'CASE WHEN EXISTS (SELECT 1 FROM people_left l LEFT JOIN sessions s ON s.conversation_key = l.conversation_key ' +
  'WHERE l.conversation_key = r.conversation_key AND (s.updated_at IS NULL OR l.left_at >= s.updated_at)) THEN 1 ELSE 0 END AS "left" ' +
  "FROM campaign_recipients r WHERE r.campaign_id = ? AND r.status = 'queued' AND r.not_before <= ? " +
  'ORDER BY r.not_before, r.conversation_key LIMIT ?';

export const CAMPAIGN_COLUMNS =
  'id, name, flow_id AS "flowId", spec, status, recipients, created_at AS "createdAt", start_at AS "startAt", ' +
  'updated_at AS "updatedAt"';

/** Recipients by status, and skipped or failed ones by their reason's first word. */
export const STATUS_SQL =
  'SELECT status, count(*) AS n FROM campaign_recipients WHERE campaign_id = ? GROUP BY status';
export const REASONS_SQL =
  "SELECT reason, count(*) AS n FROM campaign_recipients WHERE campaign_id = ? AND status IN ('skipped', 'failed') " +
  'GROUP BY reason';

/**
 * The funnel: reached (sent), started (a step log line of the flow after the first step's), finished (an end
 * of the flow reached after it was sent). The step log is read once, from the campaign's creation on.
 * Parameters: campaign id, campaign id, flow id, created at.
 */
export const FUNNEL_SQL =
  "SELECT (SELECT count(*) FROM campaign_recipients WHERE campaign_id = ? AND status = 'sent') AS reached, " +
  "count(DISTINCT CASE WHEN g.at > r.settled_at OR g.event = 'finish' THEN g.conversation_key END) AS started, " +
  "count(DISTINCT CASE WHEN g.event = 'finish' THEN g.conversation_key END) AS finished " +
  'FROM step_log g JOIN campaign_recipients r ON r.campaign_id = ? AND r.conversation_key = g.conversation_key ' +
  "AND r.status = 'sent' WHERE g.flow_id = ? AND g.at >= ? AND g.at >= r.settled_at";

/** Released recipients whose entry failed: failed with the reason (one statement, both databases). */
export const SETTLE_FAILED_SQL =
  "UPDATE campaign_recipients SET status = 'failed', settled_at = ?, " +
  "reason = 'flow_failed: ' || coalesce((SELECT i.error FROM inbox i WHERE i.dedupe_key = 'campaign:' || campaign_recipients.campaign_id || ':' || campaign_recipients.conversation_key), '') " +
  "WHERE campaign_id = ? AND status = 'released' AND EXISTS (SELECT 1 FROM inbox i WHERE " +
  "i.dedupe_key = 'campaign:' || campaign_recipients.campaign_id || ':' || campaign_recipients.conversation_key " +
  "AND i.status IN ('failed', 'ignored'))";

export const RECIPIENTS_SQL =
  'SELECT conversation_key AS "conversationKey", user_id AS "userId", status, reason, not_before AS "notBefore", ' +
  'released_at AS "releasedAt", settled_at AS "settledAt" FROM campaign_recipients WHERE campaign_id = ? ' +
  'AND (CAST(? AS TEXT) IS NULL OR status = ?) ORDER BY conversation_key LIMIT ?';

export const QUEUED_SQL =
  "SELECT sum(CASE WHEN status = 'queued' THEN 1 ELSE 0 END) AS n, min(CASE WHEN status = 'queued' THEN not_before END) AS at, " +
  "sum(CASE WHEN status = 'released' THEN 1 ELSE 0 END) AS released FROM campaign_recipients WHERE campaign_id = ?";

/** Calls not yet answered: interactive (every class before `bulk`) and bulk, counted apart. */
export const BACKLOG_SQL =
  "SELECT sum(CASE WHEN priority = 'bulk' THEN 0 ELSE 1 END) AS interactive, " +
  "sum(CASE WHEN priority = 'bulk' THEN 1 ELSE 0 END) AS bulk FROM outbox WHERE status IN ('pending', 'sending')";

/** Outbox rows after an id (a range of the primary key): the last id, and how many are not `bulk`. */
export const OUTBOX_SINCE_SQL =
  "SELECT max(id) AS last, sum(CASE WHEN priority = 'bulk' THEN 0 ELSE 1 END) AS interactive FROM outbox WHERE id > ?";
export const OUTBOX_END_SQL = 'SELECT max(id) AS last, 0 AS interactive FROM outbox WHERE ? < 0';
