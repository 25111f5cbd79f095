/**
 * The bot's database as the app composes it: the engine's store and what intake commits through, opened
 * from the configuration (`database.path`: SQLite, one process; `database.url`: PostgreSQL, one process
 * among several). The rest of the app does not ask which one it is.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { rowBudget } from '../client/scheduler/row-budget.ts';
import type { SharedBudget } from '../client/scheduler/shared-budget.ts';
import type { InboxCommit } from '../inbox/inbox-writer.ts';
import { type PollingStore, sqlitePollingStore } from '../intake/polling.ts';
import { openDatabase } from '../store/database.ts';
import { KV_KEYS } from '../store/kv.ts';
import { systemClock } from '../store/ports/clock.ts';
import type { EngineStore } from '../store/ports/engine.ts';
import { openPostgres } from '../store/postgres/database.ts';
import { postgresStore } from '../store/postgres/engine-store.ts';
import { PgInbox } from '../store/postgres/inbox.ts';
import { pgKvGet, pgKvUpdate } from '../store/postgres/settings.ts';
import { openSharedPostgres, type SharedPostgres } from '../store/postgres/shared.ts';
import { sqliteStore } from '../store/sqlite/engine-store.ts';
import { startWriterThread, type WriterThread } from '../store/sqlite/writer-thread.ts';
import type { Config } from './config.ts';
import { StartupError } from './startup-error.ts';

/** The opened database. */
export interface AppStore {
  store: EngineStore;
  /** What intake commits accepted updates through: the SQLite connection (and its writer thread), or `commit`. */
  intake: { db?: Database.Database; commit?: InboxCommit };
  /** The poller's store: its marker and the commit of a batch with the next marker. */
  pollingStore(): Promise<PollingStore>;
  /** Several processes may share it: the scheduler leaves a reserve for the others' own calls. */
  shared: boolean;
  /**
   * When shared, the reserve every process's own calls share (client/scheduler/row-budget.ts): `limit` starts a second,
   * taken while `applies()` (while this process is not the dispatcher).
   */
  sharedBudget?(o: { limit: number; applies: () => boolean }): SharedBudget;
  /** Closes the writer thread (if any), then the database. */
  close(): Promise<void>;
}

/**
 * Opens the configured database (migrations applied). Throws `StartupError` when it cannot be reached.
 * `shared`: on PostgreSQL, the process's pool the database uses in its schema (a deployment's bots).
 */
export async function openAppStore(
  config: Config,
  logger: Logger,
  shared?: SharedPostgres,
): Promise<AppStore> {
  const storeLogger = logger.child({ component: 'store' });
  if (config.database.url) {
    const pg = await openPostgres({
      url: config.database.url.reveal(),
      ...(config.database.schema ? { schema: config.database.schema } : {}),
      ...(shared ? { shared } : {}),
      logger: storeLogger,
    }).catch((error: unknown) => {
      throw new StartupError((error as Error).message, 5);
    });
    const inbox = new PgInbox(pg.pool);
    return {
      store: postgresStore(pg),
      intake: { commit: (entries) => inbox.append(entries) },
      async pollingStore() {
        const stored = await pgKvGet(pg.pool, KV_KEYS.pollingMarker);
        return {
          marker: stored === undefined ? undefined : Number(stored),
          commit: (entries, next) => inbox.appendWithMarker(entries, KV_KEYS.pollingMarker, next),
        };
      },
      shared: true,
      sharedBudget: (o) => rowBudget((key, initial, change) => pgKvUpdate(pg.pool, key, initial, change), o),
      close: () => pg.close(),
    };
  }
  const { path, synchronous } = config.database;
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = openDatabase({ path, synchronous, logger: storeLogger });
  let writer: WriterThread | undefined;
  try {
    if (config.database.writerThread && path !== ':memory:')
      writer = await startWriterThread({ path, synchronous });
  } catch (error) {
    db.close();
    throw error;
  }
  const thread = writer;
  return {
    store: sqliteStore(db, { writer, now: systemClock.now, logger: logger.child({ component: 'engine' }) }),
    intake: { db, ...(thread ? { commit: (entries) => thread.append(entries) } : {}) },
    pollingStore: async () => sqlitePollingStore(db),
    shared: false,
    async close() {
      await writer?.close();
      if (db.open) db.close();
    },
  };
}

/**
 * The process's one PostgreSQL pool and LISTEN connection for a deployment's bots, each in its schema
 * (undefined on SQLite). Throws `StartupError` when the database cannot be reached.
 */
export async function openSharedStore(config: Config): Promise<SharedPostgres | undefined> {
  if (!config.database.url) return undefined;
  return openSharedPostgres({ url: config.database.url.reveal() }).catch((error: unknown) => {
    throw new StartupError((error as Error).message, 5);
  });
}
