/**
 * Reading a bot's database from the command line (`botflow stats`, `botflow flows plan`, `botflow replay`),
 * whichever it is: a SQLite file (opened read-only) or a PostgreSQL database (migrations not applied). The
 * PostgreSQL driver loads only when a URL is given.
 */
import { existsSync } from 'node:fs';
import { BotflowError } from '../errors/index.ts';
import { sqliteCampaigns } from './campaigns/sqlite.ts';
import { FlowVersionStore } from './flow-versions.ts';
import { HistoryStore } from './history.ts';
import { campaignFigures, type StoreReader } from './ports/reader.ts';
import { SessionStore } from './sessions.ts';
import { SQLite } from './sqlite.ts';
import { StepLogStore } from './step-log.ts';

export type { PlanReads, StoreReader } from './ports/reader.ts';

/** Opens the database at `path` (SQLite) or `url` (PostgreSQL) for reading. */
export async function openReader(source: { path: string } | { url: string }): Promise<StoreReader> {
  if ('url' in source) {
    const { postgresReader } = await import('./postgres/reader.ts');
    return postgresReader(source.url);
  }
  const { path } = source;
  if (!existsSync(path))
    throw new BotflowError(
      'BOTFLOW_DATABASE_UNREADABLE',
      `no database at ${path} yet: botflow run creates it (run the bot first), or give --db <file>`,
    );
  const db = new SQLite(path, { readonly: true, fileMustExist: true });
  return {
    where: path,
    async *stepLog(query) {
      yield* new StepLogStore(db).rows(query);
    },
    async history(conversation) {
      const history = new HistoryStore(db, conversation);
      return {
        updates: history.updates(),
        settledCalls: history.settledCalls(),
        firstKeptUpdate: history.firstKeptUpdate(),
        sessionStarts: history.sessionStarts(),
      };
    },
    planReads: async () => ({ sessions: new SessionStore(db), versions: new FlowVersionStore(db) }),
    campaigns: () => campaignFigures(() => sqliteCampaigns(db)),
    async close() {
      db.close();
    },
  };
}
