/**
 * The engine's store on SQLite: one process owns every conversation, every answer is immediate, and an
 * optional writer thread commits batches on a second core while the engine plans the next one.
 */
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { sqliteCampaigns } from '../campaigns/sqlite.ts';
import { EngineInbox } from '../engine-inbox.ts';
import { buttonSecret } from '../engine-settings.ts';
import { FlowVersionStore } from '../flow-versions.ts';
import { sqliteWaitingHandoffs } from '../handoff-queue.ts';
import { InboxStore } from '../inbox.ts';
import type { EngineStore } from '../ports/engine.ts';
import { type SessionRow, SessionStore } from '../sessions.ts';
import { StepLogStore } from '../step-log.ts';
import { TaskStore } from '../tasks.ts';
import { TimerService } from '../timer-service.ts';
import { BatchApplier } from './apply.ts';
import { SqliteOutbox } from './outbox-port.ts';
import { sqliteSupport } from './support.ts';
import { type WriterThread, WriterThreadStoppedError } from './writer-thread.ts';

/** How to open the SQLite adapter. */
export interface SqliteStoreOptions {
  /** A writer thread on the same file (`startWriterThread`): batches commit there while the next is planned. */
  writer?: WriterThread | undefined;
  /** The engine's clock, for the rows the applier stamps and the inbox entries appended without a time. */
  now: () => number;
  logger?: Logger | undefined;
}

/** The SQLite adapter over an open database (`openDatabase`: migrations applied). */
export interface SqliteEngineStore extends EngineStore<true> {
  readonly kind: 'sqlite';
  readonly db: Database.Database;
}

/** The engine's store over `db`. */
export function sqliteStore(db: Database.Database, options: SqliteStoreOptions): SqliteEngineStore {
  const inbox = new EngineInbox(db);
  const sessions = new SessionStore(db);
  const waitingHandoffs = sqliteWaitingHandoffs(db);
  const applier = new BatchApplier(db, options.now);
  const timers = new TimerService(db, {}, options.logger);
  const versions = new FlowVersionStore(db);
  const stepLog = new StepLogStore(db);
  let writer = options.writer;
  let applying = 0;
  let appender: InboxStore | undefined;

  return {
    kind: 'sqlite',
    synchronous: true,
    db,
    pending: (_partitions, afterId, limit, exclude) =>
      exclude?.size
        ? inbox
            .pending(afterId, limit + exclude.size)
            .filter((row) => !exclude.has(row.id))
            .slice(0, limit)
        : inbox.pending(afterId, limit),
    append(entries) {
      if (writer) return writer.append([...entries], options.now());
      appender ??= new InboxStore(db, options.now);
      return appender.append(entries);
    },
    pendingCount: () => (db.open ? inbox.pendingCount() : 0),
    waitingHandoffs: (steps) => waitingHandoffs(steps),
    sessions(keys) {
      const found = new Map<string, SessionRow>();
      for (const key of keys) {
        const row = sessions.get(key);
        if (row) found.set(key, row);
      }
      return found;
    },
    apply(batch, _member, now) {
      if (!writer) return applier.apply(batch);
      applying++;
      return writer
        .apply(batch, now)
        .catch((error: unknown) => {
          if (error instanceof WriterThreadStoppedError) {
            options.logger?.error(
              { err: error },
              'writer thread stopped; the engine commits on its own connection',
            );
            writer = undefined;
          }
          throw error;
        })
        .finally(() => {
          applying--;
        });
    },
    applyHere: (batch) => applier.apply(batch),
    get applying() {
      return applying;
    },
    fireDueTimers: (_partitions, now, limit) => timers.fireDue(now, limit),
    nextTimerAt: () => timers.nextFireAt(),
    timerGrace: (_partitions, now, grace) => new TimerService(db, grace, options.logger).recover(now),
    buttonSecret: (now) => buttonSecret(db, now),
    recordFlowVersion(flowId, version, now, source) {
      if (db.open) versions.record(flowId, version, now, source);
    },
    flowSources: (wanted) =>
      new Map(
        versions
          .sources(wanted.map(({ flowId, flowVersion }) => ({ flowId, version: flowVersion })))
          .map((s) => [`${s.flowId}@${s.version}`, s.source]),
      ),
    pinnedVersions: () => sessions.activeByVersion(),
    outbox: new SqliteOutbox(db),
    taskPort: () => new TaskStore(db),
    support: sqliteSupport(db),
    campaigns: sqliteCampaigns(db),
    async *stepLog(query = {}) {
      // Read at once: the connection must not stay busy with a cursor while the consumer awaits.
      yield* [...stepLog.rows(query)];
    },
    prune(before) {
      const inbox = new InboxStore(db).prune(0, before.inbox);
      return { inbox, ...applier.stores.prune(before.settled, before.stepLog) };
    },
  };
}
