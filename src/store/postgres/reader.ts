/** The PostgreSQL side of `openReader` (store/reader.ts): a pool on the database, migrations not applied. */

import { BotflowError } from '../../errors/index.ts';
import { campaignFigures, type StoreReader } from '../ports/reader.ts';
import { pgCampaigns } from './campaigns.ts';
import { openPostgres, type PostgresDatabase } from './database.ts';
import { pgHistory } from './history.ts';
import { pgPlanSources, pgStepLog } from './sessions.ts';

/**
 * Opens the database at `url` (in `schema`, a bot's of a deployment, when given: it must exist) without
 * applying migrations.
 */
export async function openPostgresExisting(url: string, schema?: string): Promise<PostgresDatabase> {
  const pg = await openPostgres({ url, migrate: false, ...(schema !== undefined ? { schema } : {}) });
  if (schema === undefined) return pg;
  const found = await pg.pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (found.rowCount === 0) {
    await pg.close();
    throw new BotflowError(
      'BOTFLOW_DATABASE_UNREADABLE',
      `no schema ${schema} in ${pg.where} yet: the bot creates it at its first start (or run botflow migrate)`,
    );
  }
  return pg;
}

/** Opens the database at `url` (in `schema`, when given) for reading. */
export async function postgresReader(url: string, schema?: string): Promise<StoreReader> {
  const pg = await openPostgresExisting(url, schema);
  return {
    where: pg.where,
    stepLog: (query) => pgStepLog(pg.pool, query),
    history: (conversation) => pgHistory(pg.pool, conversation),
    planReads: (latest) => pgPlanSources(pg.pool, latest),
    campaigns: () => campaignFigures(() => pgCampaigns(pg.pool)),
    close: () => pg.close(),
  };
}
