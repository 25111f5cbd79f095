/**
 * The deployment's catalog of bots where the configuration keeps its data: beside the SQLite file
 * (`<data>/bots.db`, next to the bots' own `<data>/bots/<name>.db`), or in the PostgreSQL database's
 * `botflow_deployment` schema. `botflow run` and `botflow bots` open the same one, so a bot added, paused or
 * removed by the command reaches the running deployment (it polls the catalog's version).
 */
import { dirname } from 'node:path';
import { openSqliteBotsCatalog, sqliteCatalogPath } from '../store/bots-catalog.ts';
import type { BotsCatalog } from '../store/ports/bots-catalog.ts';
import { openPostgresBotsCatalog } from '../store/postgres/bots-catalog.ts';
import { openSharedPostgres } from '../store/postgres/shared.ts';
import type { Config } from './config.ts';

/** Opens the configured deployment's catalog; closing it closes what it opened. */
export async function openBotsCatalog(config: Config): Promise<BotsCatalog> {
  if (!config.database.url) return openSqliteBotsCatalog(sqliteCatalogPath(dirname(config.database.path)));
  const shared = await openSharedPostgres({ url: config.database.url.reveal(), max: 2 });
  try {
    const catalog = await openPostgresBotsCatalog(shared);
    return {
      ...catalog,
      close: async () => {
        await catalog.close();
        await shared.close();
      },
    };
  } catch (error) {
    await shared.close();
    throw error;
  }
}
