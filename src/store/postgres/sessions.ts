/** Sessions on PostgreSQL: the engine reads a batch's sessions in one query before planning it. */
import type pg from 'pg';
import { lineOf, type RawLine, stepLogSql } from '../ports/queries.ts';
import type { FlowVersionSource, SessionRow, StepLogRow } from '../ports/rows.ts';
import { pgFlowSources } from './settings.ts';

/** A session row's columns, named as `SessionRow`. */
export const SESSION_COLUMNS =
  'conversation_key AS "conversationKey", flow_id AS "flowId", flow_version AS "flowVersion", status, ' +
  'state_value AS "stateValue", snapshot, revision, step_instance AS "stepInstance", ' +
  'started_revision AS "startedRevision", chat_id AS "chatId", user_id AS "userId", locale, ' +
  'started_at AS "startedAt", updated_at AS "updatedAt"';

/** The stored sessions of `keys` (keys without one are absent from the map). */
export async function pgSessions(
  pool: pg.Pool | pg.PoolClient,
  keys: readonly string[],
): Promise<Map<string, SessionRow>> {
  if (keys.length === 0) return new Map();
  const { rows } = await pool.query<SessionRow>(
    `SELECT ${SESSION_COLUMNS} FROM sessions WHERE conversation_key = ANY ($1::text[])`,
    [keys],
  );
  return new Map(rows.map((row) => [row.conversationKey, row]));
}

/** One session. */
export async function pgSession(pool: pg.Pool | pg.PoolClient, key: string): Promise<SessionRow | undefined> {
  return (await pgSessions(pool, [key])).get(key);
}

/**
 * The funnel's step log of `flowId` (or every flow) since `since`, in conversation order then commit
 * order (store/step-log.ts), a page of `pageSize` lines at a time: a production log can be long.
 */
export async function* pgStepLog(
  pool: pg.Pool,
  options: { flowId?: string; since?: number; pageSize?: number } = {},
): AsyncGenerator<StepLogRow> {
  const limit = options.pageSize ?? 10_000;
  let after: [string, number] | undefined;
  for (;;) {
    const params: (string | number)[] = [options.since ?? 0];
    if (options.flowId !== undefined) params.push(options.flowId);
    if (after) params.push(...after);
    const sql = stepLogSql((n) => `$${n}`, options.flowId !== undefined, { after: !!after, limit });
    const { rows } = await pool.query<RawLine>(sql, params);
    for (const line of rows) yield lineOf(line);
    if (rows.length < limit) return;
    const last = rows.at(-1)!;
    after = [last.conversationKey, last.id];
  }
}

/**
 * What `botflow flows plan` reads, read ahead from PostgreSQL: active sessions by flow version, the
 * snapshots of those on a version other than `latest` names, and those versions' stored sources.
 */
export async function pgPlanSources(
  pool: pg.Pool,
  latest: ReadonlyMap<string, string>,
): Promise<{
  sessions: {
    activeByVersion(): { flowId: string; flowVersion: string; n: number }[];
    activeSnapshots(flowId: string, flowVersion: string): { snapshot: string }[];
  };
  versions: { sources(v: readonly { flowId: string; version: string }[]): FlowVersionSource[] };
}> {
  const { rows: counts } = await pool.query<{ flowId: string; flowVersion: string; n: number }>(
    'SELECT flow_id AS "flowId", flow_version AS "flowVersion", count(*)::int AS n FROM sessions ' +
      "WHERE status = 'active' GROUP BY flow_id, flow_version ORDER BY flow_id, flow_version",
  );
  const older = counts.filter((c) => latest.get(c.flowId) !== c.flowVersion);
  const snapshots = new Map<string, { snapshot: string }[]>();
  for (const { flowId, flowVersion } of older) {
    const { rows } = await pool.query<{ snapshot: string }>(
      "SELECT snapshot FROM sessions WHERE status = 'active' AND flow_id = $1 AND flow_version = $2",
      [flowId, flowVersion],
    );
    snapshots.set(`${flowId}@${flowVersion}`, rows);
  }
  const sources = await pgFlowSources(pool, older);
  return {
    sessions: {
      activeByVersion: () => counts,
      activeSnapshots: (flowId, flowVersion) => snapshots.get(`${flowId}@${flowVersion}`) ?? [],
    },
    versions: {
      sources: (versions) =>
        versions.flatMap(({ flowId, version }) => {
          const source = sources.get(`${flowId}@${version}`);
          return source === undefined ? [] : [{ flowId, version, source }];
        }),
    },
  };
}
