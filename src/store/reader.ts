/**
 * Reading a bot's database from the command line (`botflow stats`, `botflow flows plan`, `botflow replay`),
 * whichever it is: a SQLite file (opened read-only) or a PostgreSQL database (migrations not applied). The
 * PostgreSQL driver loads only when a URL is given.
 */
import { existsSync } from 'node:fs';
import { BotflowError } from '../errors/index.ts';
import { FlowVersionStore } from './flow-versions.ts';
import { type HistoryData, HistoryStore } from './history.ts';
import { SessionStore } from './sessions.ts';
import { SQLite } from './sqlite.ts';
import { type StepLogRow, StepLogStore } from './step-log.ts';

/** What a flow-change plan reads: active sessions by version, their snapshots, stored sources. */
export interface PlanReads {
  sessions: {
    activeByVersion(): { flowId: string; flowVersion: string; n: number }[];
    activeSnapshots(flowId: string, flowVersion: string): Iterable<{ snapshot: string }>;
  };
  versions: {
    sources(
      versions: readonly { flowId: string; version: string }[],
    ): { flowId: string; version: string; source: string }[];
  };
}

/** A database opened for reading. */
export interface StoreReader {
  /** How to name it in a message (a path, or the URL without its password). */
  readonly where: string;
  /** The funnel's step log of a flow (or all) since `since`. */
  stepLog(query: { flowId?: string; since?: number }): AsyncIterable<StepLogRow>;
  /** The updates and settled calls of one conversation (or all), for a recording. */
  history(conversation?: string): Promise<HistoryData>;
  /** What a plan of a flow change reads, with `latest` the version of each flow that would run. */
  planReads(latest: ReadonlyMap<string, string>): Promise<PlanReads>;
  close(): Promise<void>;
}

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
    async close() {
      db.close();
    },
  };
}
