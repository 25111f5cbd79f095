/** Small parts of `createEngine`: which store, how calls reach the platform, the sole role. */

import type { Logger } from 'pino';
import type { Job } from '../client/scheduler/types.ts';
import { type UploadClient, type UploadScheduler, uploadMedia } from '../client/upload.ts';
import type { CallGateway, MediaUploader } from '../dispatch/send.ts';
import { BotflowError } from '../errors/index.ts';
import { DEFAULT_INBOX_RETENTION_MS } from '../inbox/pruner.ts';
import { PARTITIONS } from '../store/partitions.ts';
import type { EngineStore, Partitions } from '../store/ports/engine.ts';
import { andThen, type MaybePromise } from '../store/ports/index.ts';
import { sqliteStore } from '../store/sqlite/engine-store.ts';
import type { TimerGrace } from '../store/timer-service.ts';
import type { Answer, EngineOptions } from './engine-options.ts';
import type { Role } from './lane/ownership.ts';

/** The grace rule with its defaults: 60 s tolerance, 6 h at most, 10 per second. */
export function graceOf(grace: TimerGrace = {}): Required<TimerGrace> {
  return {
    toleranceMs: grace.toleranceMs ?? 60_000,
    maxLateMs: grace.maxLateMs ?? 6 * 3_600_000,
    perSecond: Math.max(0.001, grace.perSecond ?? 10),
  };
}

/** The role of a process alone on its database: every partition, and the dispatcher. */
export function soleRole(member: string): Role {
  return {
    member,
    partitions: Array.from({ length: PARTITIONS }, (_, i) => i),
    dispatcher: true,
    members: 1,
    lastTickAt: 0,
  };
}

/** The store `options` name: `store`, or `db` through the SQLite adapter. */
export function storeOf(options: EngineOptions<boolean>, now: () => number): EngineStore {
  if (options.store) return options.store;
  if (!options.db) {
    throw new BotflowError(
      'BOTFLOW_OPTIONS_INVALID',
      'createEngine needs `db` (SQLite) or `store` (sqliteStore, postgresStore)',
    );
  }
  return sqliteStore(options.db, { writer: options.writer, now, logger: options.logger });
}

/** How the engine's calls reach the platform: the scheduler (or the bare client), and media uploads. */
export function callsOf(options: Pick<EngineOptions, 'api' | 'scheduler' | 'upload'>): {
  gateway?: CallGateway;
  upload?: MediaUploader;
} {
  const api = options.api;
  const gateway: CallGateway | undefined =
    options.scheduler ?? (api ? { submit: (job: Job) => api.call(job.op, job.args) } : undefined);
  const upload: MediaUploader | undefined =
    options.upload ??
    (api?.dispatcher !== undefined && api.uploadHeaders !== undefined
      ? (media) =>
          uploadMedia(api as UploadClient, media.type, media.source, {
            ...(options.scheduler?.run ? { scheduler: options.scheduler as UploadScheduler } : {}),
          }) as Promise<Record<string, unknown>>
      : undefined);
  return { ...(gateway ? { gateway } : {}), ...(upload ? { upload } : {}) };
}

/** How long the funnel's step log is kept (`botflow stats` looks back at most this far). */
export const STEP_LOG_KEPT_MS = 90 * 24 * 3_600_000;

/** `engine.prune()`: settled rows older than `olderThanMs` (default 7 days), the step log after 90 days. */
export function pruneStore(
  store: EngineStore,
  at: number,
  olderThanMs = 7 * 24 * 3_600_000,
  stepLogOlderThanMs = STEP_LOG_KEPT_MS,
): Answer<boolean, Record<'inbox' | 'outbox' | 'timers' | 'tasks' | 'stepLog', number>> {
  return store.prune({
    inbox: at - DEFAULT_INBOX_RETENTION_MS,
    settled: at - olderThanMs,
    stepLog: at - stepLogOlderThanMs,
  }) as Answer<boolean, Record<'inbox' | 'outbox' | 'timers' | 'tasks' | 'stepLog', number>>;
}

/** The grace rule for overdue timers, once for the partitions a process just took (all: at start). */
export function applyGraceRule(
  store: EngineStore,
  taken: Partitions,
  at: number,
  grace: Required<TimerGrace>,
  logger: Logger | undefined,
): MaybePromise<void> {
  return andThen(store.timerGrace(taken, at, grace), (done) => {
    if (done.postponed + done.expired > 0)
      logger?.info(done, 'timers that came due while nothing ran them: spread out or expired');
  });
}

/** Moves every timer of `partitions` due at `at` into the inbox, a thousand at a time; how many. */
export function fireAllDue(store: EngineStore, partitions: Partitions, at: number): MaybePromise<number> {
  const round = (fired: number): MaybePromise<number> =>
    andThen(store.fireDueTimers(partitions, at, 1000), (n) => (n === 0 ? fired : round(fired + n)));
  return round(0);
}

/** What every part of a built engine reads: whether it runs, and when its loop last ran. */
export interface RunState {
  /** Started and not stopped. */
  running: boolean;
  /** Started once (its role's `lastTickAt` counts from then). */
  joined: boolean;
  /** The grace rule was applied to every partition (one process). */
  graced: boolean;
  /** Wall time the batch loop last ran (liveness). */
  lastLoopAt: number;
}
