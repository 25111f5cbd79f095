/** What the command line reads of a bot's database (store/reader.ts opens one of either kind). */
import type { HistoryData } from '../history.ts';
import type { StepLogRow } from '../step-log.ts';

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
