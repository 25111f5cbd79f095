/**
 * The engine's store on PostgreSQL: several processes share the database, each handling the partitions it
 * holds leases on; a batch commits in one round trip (`botflow_apply_batch`), which checks those leases in
 * the same transaction. Notifications tell the processes about each other's commits.
 */

import type { Clock } from '../ports/clock.ts';
import type { EngineStore, Partitions } from '../ports/engine.ts';
import { PARTITIONS } from '../ports/partitions.ts';
import type { ApplyResult } from '../ports/write-plan.ts';
import { pgCampaigns } from './campaigns.ts';
import { applyBatch } from './commit.ts';
import { type PostgresDatabase, pgListen } from './database.ts';
import { pgWaitingHandoffs } from './handoff-queue.ts';
import { PgInbox } from './inbox.ts';
import { parseLeaseNews } from './lease-notify.ts';
import { PgLeases } from './leases.ts';
import { notifyOutbox, PgOutbox } from './outbox.ts';
import { pgPrune } from './prune.ts';
import { pgSessions, pgStepLog } from './sessions.ts';
import { pgButtonSecret, pgFlowSources, pgRecordFlowVersion } from './settings.ts';
import { channelsOf } from './shared.ts';
import { pgSupport } from './support.ts';
import { PgTasks } from './tasks.ts';
import { applyTimerGrace, fireDueTimers, nextFireAt } from './timers.ts';

/** The PostgreSQL adapter over an open database (`openPostgres`: migrations applied). */
export interface PostgresEngineStore extends EngineStore<false> {
  readonly kind: 'postgres';
  readonly pg: PostgresDatabase;
}

const ALL = Array.from({ length: PARTITIONS }, (_, i) => i);
const list = (partitions: Partitions): readonly number[] => (partitions === 'all' ? ALL : partitions);

/**
 * The engine's store over `pg`. `options.now` is the engine's clock, for the inbox entries appended without a
 * time (default the system clock; the rows a batch settles take the time the engine gives `apply`).
 */
export function postgresStore(
  pg: PostgresDatabase,
  options: { now?: Clock['now'] } = {},
): PostgresEngineStore {
  const { pool } = pg;
  // The bot's own channels (a schema per bot): two bots never hear each other's news.
  const channels = channelsOf(pg.schema);
  const inbox = new PgInbox(pool, options.now);
  let applying = 0;
  // Batches that share a conversation commit in the order they were planned (a conversation's later event
  // never commits first); batches with none in common commit side by side, each on a connection of its own,
  // so that the server's work on one batch no longer waits for the one before it.
  const lastOf = new Map<string, Promise<unknown>>();

  const apply = (batch: Parameters<EngineStore['apply']>[0], member: string, now: number) => {
    applying++;
    const keys = new Set(batch.map((writes) => writes.conversationKey ?? ''));
    const before = new Set<Promise<unknown>>();
    for (const key of keys) {
      const last = lastOf.get(key);
      if (last) before.add(last);
    }
    const run: Promise<ApplyResult[]> = Promise.all([...before].map((last) => last.catch(() => {})))
      .then(() => applyBatch(pool, member, batch, now) as Promise<ApplyResult[]>)
      .finally(() => {
        applying--;
        for (const key of keys) if (lastOf.get(key) === run) lastOf.delete(key);
      });
    for (const key of keys) lastOf.set(key, run);
    return run;
  };

  return {
    kind: 'postgres',
    synchronous: false,
    batchesInFlight: 3,
    pg,
    pending: (partitions, afterId, limit, exclude) =>
      inbox.pending(list(partitions), limit, afterId, exclude),
    append: (entries) => inbox.append(entries),
    pendingCount: (partitions) => inbox.pendingCount(partitions === 'all' ? undefined : partitions),
    sessions: (keys) => pgSessions(pool, keys),
    waitingHandoffs: (steps) => pgWaitingHandoffs(pool, steps),
    apply,
    applyHere: apply,
    get applying() {
      return applying;
    },
    fireDueTimers: (partitions, now, limit) => fireDueTimers(pool, list(partitions), now, limit),
    nextTimerAt: (partitions) => nextFireAt(pool, list(partitions)),
    timerGrace: (partitions, now, grace) => applyTimerGrace(pool, list(partitions), now, grace),
    buttonSecret: (now) => pgButtonSecret(pool, now),
    recordFlowVersion: (flowId, version, now, source) =>
      pgRecordFlowVersion(pool, flowId, version, now, source),
    flowSources: (versions) => pgFlowSources(pool, versions),
    async pinnedVersions() {
      const { rows } = await pool.query<{ flowId: string; flowVersion: string; n: number }>(
        'SELECT flow_id AS "flowId", flow_version AS "flowVersion", count(*)::int AS n FROM sessions ' +
          "WHERE status = 'active' GROUP BY flow_id, flow_version ORDER BY flow_id, flow_version",
      );
      return rows;
    },
    stepLog: (query = {}) => pgStepLog(pool, query),
    prune: (before) => pgPrune(pool, before),
    outbox: new PgOutbox(pool),
    taskPort: (member) => new PgTasks(pool, member),
    support: pgSupport(pool),
    campaigns: pgCampaigns(pool),
    leases: new PgLeases(pool),
    listen: (hear, lost) =>
      pgListen(
        pg,
        [channels.inbox, channels.outbox, channels.leases],
        (channel, payload) => {
          if (channel === channels.inbox) hear.inbox();
          else if (channel === channels.outbox) hear.outbox();
          else {
            const news = parseLeaseNews(payload);
            if (news) hear.leases?.(news);
          }
        },
        lost,
      ),
    announceOutbox: () => notifyOutbox(pool),
  };
}
