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

/** Where a bot's database is: a SQLite file, or a PostgreSQL database (in a bot's schema, for a deployment's bot). */
export type DatabaseSource = { path: string } | { url: string; schema?: string };

/** The source the `database` settings name (`config.database`: its path, or its URL and schema). */
export function databaseSource(database: {
  path: string;
  url?: { reveal(): string };
  schema?: string;
}): DatabaseSource {
  if (!database.url) return { path: database.path };
  return { url: database.url.reveal(), ...(database.schema ? { schema: database.schema } : {}) };
}

/** Opens the database at `path` (SQLite) or `url` (PostgreSQL, in `schema` when given) for reading. */
export async function openReader(source: DatabaseSource): Promise<StoreReader> {
  if ('url' in source) {
    const { postgresReader } = await import('./postgres/reader.ts');
    return postgresReader(source.url, source.schema);
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
