/**
 * Opening the bot's database for a tool (`botflow outbox`): the engine's store over a SQLite file or a
 * PostgreSQL database, whichever the settings name. The PostgreSQL driver loads only when a URL is given.
 */
import { existsSync } from 'node:fs';
import { BotflowError } from '../errors/index.ts';
import { openDatabase } from './database.ts';
import { type AppendResult, type InboxEntry, InboxStore } from './inbox.ts';
import { systemClock } from './ports/clock.ts';
import type { EngineStore } from './ports/engine.ts';
import type { DatabaseSource } from './reader.ts';
import { sqliteStore } from './sqlite/engine-store.ts';

/** An open store and how to close it. */
export interface OpenStore {
  store: EngineStore;
  /** How to name it in a message (a path, or the URL without its password). */
  where: string;
  /**
   * Appends to the inbox as intake does (duplicates of `dedupeKey` ignored): `botflow event send`. A running
   * bot takes the rows at its next look (PostgreSQL: at once, by notification; SQLite: within a second).
   */
  appendInbox(entries: readonly InboxEntry[]): Promise<AppendResult[]>;
  close(): Promise<void>;
}

/**
 * Opens an existing database at `path` (SQLite: pending migrations applied, as any open does) or `url`
 * (PostgreSQL, in `schema` when given: shared by running processes, so its migrations are left to
 * `botflow migrate`).
 */
export async function openStore(source: DatabaseSource): Promise<OpenStore> {
  if ('url' in source) {
    const { openPostgresExisting } = await import('./postgres/reader.ts');
    const { postgresStore } = await import('./postgres/engine-store.ts');
    const { PgInbox } = await import('./postgres/inbox.ts');
    const pg = await openPostgresExisting(source.url, source.schema);
    const inbox = new PgInbox(pg.pool);
    return {
      store: postgresStore(pg),
      where: pg.where,
      appendInbox: (entries) => inbox.append(entries),
      close: () => pg.close(),
    };
  }
  if (!existsSync(source.path))
    throw new BotflowError(
      'BOTFLOW_DATABASE_UNREADABLE',
      `no database at ${source.path}: give --db, or run from the bot's folder`,
    );
  const db = openDatabase({ path: source.path });
  return {
    store: sqliteStore(db, { now: systemClock.now }),
    where: source.path,
    appendInbox: async (entries) => new InboxStore(db).append(entries),
    async close() {
      db.close();
    },
  };
}
