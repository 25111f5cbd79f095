/**
 * Moving a bot from SQLite to PostgreSQL: every table of the SQLite database is copied, row ids kept (timer
 * and result events name them), each row given the partition of its conversation, in one PostgreSQL
 * transaction. The target must be migrated and empty; the SQLite file is opened read-only and not changed.
 * Stop the bot first: rows written during the copy would be missed.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { BotflowError } from '../../errors/index.ts';
import { partitionOf } from './database.ts';
import { inTransaction } from './transaction.ts';

/** Tables copied, in order, and whether their rows carry a conversation's partition. */
const TABLES: { name: string; partitioned: boolean; identity: boolean }[] = [
  { name: 'kv', partitioned: false, identity: false },
  { name: 'flow_versions', partitioned: false, identity: false },
  { name: 'sessions', partitioned: false, identity: false },
  { name: 'inbox', partitioned: true, identity: true },
  { name: 'outbox', partitioned: true, identity: true },
  { name: 'timers', partitioned: true, identity: true },
  { name: 'tasks', partitioned: true, identity: true },
  { name: 'step_log', partitioned: false, identity: true },
];

const CHUNK = 2000;

/** Rows copied per table. */
export type CopyReport = Record<string, number>;

/** Copies `sqlite` into the empty, migrated PostgreSQL database behind `pool`. */
export async function copyFromSqlite(
  sqlite: Database.Database,
  pool: pg.Pool,
  progress?: (table: string, rows: number) => void,
): Promise<CopyReport> {
  const report: CopyReport = {};
  return inTransaction(pool, async (client) => {
    for (const table of ['sessions', 'inbox', 'outbox']) {
      const { rows } = await client.query(`SELECT 1 FROM ${table} LIMIT 1`);
      if (rows.length > 0) {
        throw new BotflowError(
          'BOTFLOW_POSTGRES_NOT_EMPTY',
          `the PostgreSQL database already holds ${table}: copy into a new, empty database (botflow migrate --to creates the tables)`,
        );
      }
    }
    for (const table of TABLES) {
      const exists = sqlite
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        .get(table.name);
      if (!exists) continue;
      let copied = 0;
      const select = sqlite.prepare(`SELECT * FROM ${table.name} ORDER BY rowid LIMIT ? OFFSET ?`);
      for (;;) {
        const rows = select.all(CHUNK, copied) as Record<string, unknown>[];
        if (rows.length === 0) break;
        const shaped = table.partitioned
          ? rows.map((row) => ({ ...row, partition: partitionOf(row.conversation_key as string | null) }))
          : rows;
        await client.query(
          `INSERT INTO ${table.name} ${table.identity ? 'OVERRIDING SYSTEM VALUE ' : ''}` +
            `SELECT * FROM json_populate_recordset(NULL::${table.name}, $1::json)`,
          [JSON.stringify(shaped)],
        );
        copied += rows.length;
        progress?.(table.name, copied);
      }
      if (table.identity) {
        await client.query(
          `SELECT setval(pg_get_serial_sequence('${table.name}', 'id'), coalesce((SELECT max(id) FROM ${table.name}), 0) + 1, false)`,
        );
      }
      report[table.name] = copied;
    }
    return report;
  });
}
