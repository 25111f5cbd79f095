/** The PostgreSQL side of `openReader` (store/reader.ts): a pool on the database, migrations not applied. */
import { campaignFigures, type StoreReader } from '../ports/reader.ts';
import { pgCampaigns } from './campaigns.ts';
import { openPostgres } from './database.ts';
import { pgHistory } from './history.ts';
import { pgPlanSources, pgStepLog } from './sessions.ts';

/** Opens the database at `url` for reading. */
export async function postgresReader(url: string): Promise<StoreReader> {
  const pg = await openPostgres({ url, migrate: false });
  return {
    where: pg.where,
    stepLog: (query) => pgStepLog(pg.pool, query),
    history: (conversation) => pgHistory(pg.pool, conversation),
    planReads: (latest) => pgPlanSources(pg.pool, latest),
    campaigns: () => campaignFigures(() => pgCampaigns(pg.pool)),
    close: () => pg.close(),
  };
}
