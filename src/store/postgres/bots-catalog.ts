/**
 * The deployment's catalog of bots on PostgreSQL: tables of the schema `botflow_deployment` (no bot's schema
 * may take the name), qualified in every statement, so any of the deployment's databases or the shared pool
 * reaches it whatever its `search_path`. A change locks the catalog's version row first (changes one at a
 * time across processes) and announces the new version on `botflow_bots` when it commits.
 */
import type pg from 'pg';
import { type BotsCatalog, type CatalogSql, catalogOver } from '../ports/bots-catalog.ts';
import type { PostgresDatabase } from './database.ts';
import { DEPLOYMENT_SCHEMA, type SharedPostgres } from './shared.ts';
import { transactionOn } from './transaction.ts';

/** The channel on which every change of the catalog is announced (payload: the new version). */
export const BOTS_CHANNEL = 'botflow_bots';

/** A fixed key for the lock that creates the tables: "bots" in ASCII. */
const CREATE_LOCK = 0x626f7473;

const TABLES = `
CREATE SCHEMA IF NOT EXISTS ${DEPLOYMENT_SCHEMA};
CREATE TABLE IF NOT EXISTS ${DEPLOYMENT_SCHEMA}.bots (
  name          text    PRIMARY KEY,
  alias         text    NOT NULL,
  bot_id        bigint,
  username      text,
  token_file    text,
  token_env     text,
  paused        boolean NOT NULL DEFAULT false,
  paused_reason text,
  added_at      bigint  NOT NULL,
  removed_at    bigint,
  subscription  text,
  wake_at       bigint
);
ALTER TABLE ${DEPLOYMENT_SCHEMA}.bots ADD COLUMN IF NOT EXISTS subscription text;
ALTER TABLE ${DEPLOYMENT_SCHEMA}.bots ADD COLUMN IF NOT EXISTS wake_at bigint;
CREATE UNIQUE INDEX IF NOT EXISTS bots_alias ON ${DEPLOYMENT_SCHEMA}.bots (alias) WHERE removed_at IS NULL;
CREATE TABLE IF NOT EXISTS ${DEPLOYMENT_SCHEMA}.catalog (version bigint NOT NULL);
INSERT INTO ${DEPLOYMENT_SCHEMA}.catalog (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM ${DEPLOYMENT_SCHEMA}.catalog);
`;

const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/**
 * The catalog in `database` (an open bot's database or the process's shared pool), its tables created if
 * missing. Closing it leaves the pool open.
 */
export async function openPostgresBotsCatalog(
  database: PostgresDatabase | SharedPostgres,
): Promise<BotsCatalog> {
  const pool: pg.Pool = database.pool;
  const client = await pool.connect();
  try {
    await transactionOn(client, async () => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [CREATE_LOCK]);
      await client.query(TABLES);
    });
  } finally {
    client.release();
  }
  const sql: CatalogSql = {
    async all<T>(text: string, params: unknown[] = []) {
      return (await pool.query(numbered(text), params)).rows as T[];
    },
    bool: (value) => value,
    bots: `${DEPLOYMENT_SCHEMA}.bots`,
    meta: `${DEPLOYMENT_SCHEMA}.catalog`,
    async change(work) {
      const c = await pool.connect();
      try {
        return await transactionOn(c, async () => {
          const { rows } = await c.query<{ version: number }>(
            `UPDATE ${DEPLOYMENT_SCHEMA}.catalog SET version = version + 1 RETURNING version`,
          );
          const result = await work({
            all: async <T>(text: string, params: unknown[] = []) =>
              (await c.query(numbered(text), params)).rows as T[],
          });
          await c.query('SELECT pg_notify($1, $2)', [BOTS_CHANNEL, String(rows[0]!.version)]);
          return result;
        });
      } finally {
        c.release();
      }
    },
    close: async () => {},
  };
  return catalogOver(sql);
}
