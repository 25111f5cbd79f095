/** What the command line reads of a bot's database (store/reader.ts opens one of either kind). */
import type { CampaignFigures, CampaignPort, CampaignRow } from './campaigns.ts';
import type { HistoryData, StepLogRow } from './rows.ts';

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
  /** Every campaign with its figures (none on a database from before campaigns). */
  campaigns(): Promise<{ campaign: CampaignRow; figures: CampaignFigures }[]>;
  close(): Promise<void>;
}

/** Every campaign of `port` with its figures; none when the database has no campaigns table yet. */
export async function campaignFigures(
  port: () => CampaignPort,
): Promise<{ campaign: CampaignRow; figures: CampaignFigures }[]> {
  let rows: CampaignRow[];
  let store: CampaignPort;
  try {
    store = port();
    rows = await store.list();
  } catch (error) {
    if (/campaigns/.test((error as Error).message)) return []; // not migrated yet: no campaigns
    throw error;
  }
  return Promise.all(rows.map(async (campaign) => ({ campaign, figures: await store.figures(campaign.id) })));
}
