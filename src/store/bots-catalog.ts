/**
 * The deployment's catalog of bots on SQLite: one small file (`<dataDir>/bots.db`) beside the bots' own
 * files (`sqliteBotPath`). Changes take the file's write lock first (BEGIN IMMEDIATE), so processes sharing
 * the file serialize them; the port and its rules: src/store/ports/bots-catalog.ts.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type BotsCatalog, catalogOver } from './ports/bots-catalog.ts';
import { SQLite } from './sqlite.ts';
import { checkSqliteBotName } from './sqlite-bots.ts';

export { sqliteBotPath } from './sqlite-bots.ts';

/** The catalog's file in a deployment's data folder. */
export function sqliteCatalogPath(dataDir: string): string {
  return join(dataDir, 'bots.db');
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS bots (
  name          TEXT    PRIMARY KEY,
  alias         TEXT    NOT NULL,
  bot_id        INTEGER,
  username      TEXT,
  token_file    TEXT,
  token_env     TEXT,
  paused        INTEGER NOT NULL DEFAULT 0,
  paused_reason TEXT,
  added_at      INTEGER NOT NULL,
  removed_at    INTEGER,
  subscription  TEXT,
  wake_at       INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS bots_alias ON bots (alias) WHERE removed_at IS NULL;
CREATE TABLE IF NOT EXISTS catalog_meta (version INTEGER NOT NULL);
INSERT INTO catalog_meta (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM catalog_meta);
`;

/** The last change of each catalog file opened in this process. */
const changes = new Map<string | object, Promise<unknown>>();

/** Opens (creating it and its folder if needed) the catalog at `path` (`sqliteCatalogPath(dataDir)`). */
export function openSqliteBotsCatalog(path: string): BotsCatalog {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new SQLite(path);
  try {
    if (path !== ':memory:') db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec(`BEGIN IMMEDIATE; ${SCHEMA} COMMIT;`);
    // A catalog made before cold bots gets their columns.
    const columns = db.prepare('PRAGMA table_info(bots)').all() as { name: string }[];
    for (const [column, type] of [
      ['subscription', 'TEXT'],
      ['wake_at', 'INTEGER'],
    ]) {
      if (columns.some((known) => known.name === column)) continue;
      try {
        db.exec(`ALTER TABLE bots ADD COLUMN ${column} ${type}`);
      } catch (error) {
        // Another process opening the same file added it first.
        if (!/duplicate column/i.test(String(error))) throw error;
      }
    }
  } catch (error) {
    db.close();
    throw error;
  }
  const all = async <T>(sql: string, params: unknown[] = []): Promise<T[]> => {
    const statement = db.prepare(sql);
    if (statement.reader) return statement.all(...params) as T[];
    statement.run(...params);
    return [];
  };
  // One change at a time per file in this process: a change awaits between its statements, and a second
  // BEGIN IMMEDIATE meanwhile would wait for the lock synchronously, holding up the event loop.
  const key = path === ':memory:' ? {} : resolve(path);
  return catalogOver({
    all,
    bool: (value) => (value ? 1 : 0),
    bots: 'bots',
    meta: 'catalog_meta',
    change(work) {
      const run = async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          await all('UPDATE catalog_meta SET version = version + 1');
          const result = await work({ all });
          db.exec('COMMIT');
          return result;
        } catch (error) {
          db.exec('ROLLBACK');
          throw error;
        }
      };
      const next = (changes.get(key) ?? Promise.resolve()).then(run, run);
      const settled = next.catch(() => {});
      changes.set(key, settled);
      void settled.then(() => {
        if (changes.get(key) === settled) changes.delete(key);
      });
      return next;
    },
    async close() {
      await changes.get(key);
      db.close();
    },
  });
}

export { checkSqliteBotName };
