/**
 * The signal that a bot is idle, for asserts that nothing more happens ("no duplicate arrives", "no repeat"):
 * wait for it instead of for a time. Whatever a bot would still do comes from a row of its store: an inbox
 * entry not handled yet, an outbox row not settled (pending, or sending and possibly sent again after an
 * ambiguous answer), a task not finished. When none is left, nothing more is on its way: what the platform
 * shows then is final. (Timers that come due later, such as a flow's reminders, are not work in hand.)
 */
import Database from 'better-sqlite3';
import { eventually } from './eventually.ts';

/** The work a bot's store still holds; the same SQL for SQLite and PostgreSQL. */
export const OPEN_WORK_SQL =
  "SELECT (SELECT count(*) FROM inbox WHERE status = 'pending') AS inbox, " +
  "(SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending')) AS outbox, " +
  "(SELECT count(*) FROM tasks WHERE status IN ('pending', 'running')) AS tasks";

export type OpenWork = { inbox: number; outbox: number; tasks: number };

/** Runs OPEN_WORK_SQL and answers its one row (PostgreSQL's counts come as strings: numbers here). */
export type OpenWorkReader = (sql: string) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** Reads a SQLite file as the bot writes it (WAL): a read-only connection of its own, or `db`. */
export function sqliteReader(db: string | Database.Database): OpenWorkReader & { close(): void } {
  const own = typeof db === 'string';
  const connection = own ? new Database(db, { readonly: true, fileMustExist: true }) : db;
  const read = (sql: string) => connection.prepare(sql).get() as Record<string, unknown>;
  return Object.assign(read, { close: () => own && connection.close() });
}

/** Resolves once the store holds no open work; rejects naming what was still open when `timeoutMs` passes. */
export async function untilIdle(read: OpenWorkReader, timeoutMs = 60_000): Promise<void> {
  let last: OpenWork | undefined;
  await eventually(
    'the bot to be idle (inbox handled, outbox settled, tasks finished)',
    async () => {
      const row = await read(OPEN_WORK_SQL);
      last = { inbox: Number(row.inbox), outbox: Number(row.outbox), tasks: Number(row.tasks) };
      return last.inbox + last.outbox + last.tasks === 0;
    },
    timeoutMs,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; still open: ${JSON.stringify(last)}`);
  });
}

/** untilIdle on a SQLite file (or an open connection to it). */
export async function untilSqliteIdle(db: string | Database.Database, timeoutMs?: number): Promise<void> {
  const reader = sqliteReader(db);
  try {
    await untilIdle(reader, timeoutMs);
  } finally {
    reader.close();
  }
}
