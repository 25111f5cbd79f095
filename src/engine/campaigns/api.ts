/**
 * `engine.campaigns` (and `bot.campaigns`): plan, start, pause, resume, cancel and read campaigns. A
 * campaign starts a flow for each person of a segment, released by the campaign runner at its rate;
 * pausing, resuming and cancelling are a status in the database, so they hold across restarts and for
 * every process. docs/campaigns.md.
 */
import { randomBytes } from 'node:crypto';
import type {
  CampaignFigures,
  CampaignPort,
  CampaignRow,
  CampaignStatus,
  PersonFacts,
  RecipientRow,
  RecipientStatus,
} from '../../store/campaigns/types.ts';
import { type Campaign, CampaignError, type CampaignSpec, campaignOf } from './spec.ts';

export type { Campaign, CampaignSpec } from './spec.ts';

/** What `plan` finds: how many people match now, and a few of them. */
export interface CampaignPlan {
  campaign: Campaign;
  count: number;
  sample: PersonFacts[];
}

/** A campaign and its figures. */
export interface CampaignReport extends CampaignFigures {
  id: string;
  name: string;
  flow: string;
  status: CampaignStatus;
  recipients: number;
  createdAt: number;
  startAt: number;
  updatedAt: number;
}

/** The campaigns of an engine. */
export interface CampaignsApi {
  /** How many people the campaign would reach now, and `sample` of them (5): nothing is written. */
  plan(spec: CampaignSpec, options?: { sample?: number; name?: string }): Promise<CampaignPlan>;
  /** Snapshots the segment into queued recipients and starts releasing them (at `start_at`, else now). */
  start(spec: CampaignSpec, options?: { name?: string }): Promise<CampaignReport>;
  pause(idOrName: string): Promise<CampaignReport>;
  resume(idOrName: string): Promise<CampaignReport>;
  /** Stops for good: queued recipients are never released (those already released finish their flow). */
  cancel(idOrName: string): Promise<CampaignReport>;
  status(idOrName: string): Promise<CampaignReport>;
  list(): Promise<CampaignReport[]>;
  recipients(idOrName: string, query?: { status?: RecipientStatus; limit?: number }): Promise<RecipientRow[]>;
  /**
   * Releases what is due at `at` (default now) and says how many: the runner does this on its own while the
   * engine runs, and `engine.tick()` does on a virtual clock.
   */
  release(at?: number): Promise<number>;
}

/** What the API needs of the engine. */
export interface CampaignsApiOptions {
  store: CampaignPort;
  now: () => number;
  /** Ids of the flows loaded: a campaign must start one of them. */
  flowIds: () => string[];
  defaultTimeZone?: string | undefined;
  release(at?: number): Promise<number>;
  /** A campaign was started or resumed: release now. */
  wake(): void;
}

/** The campaigns API over `o.store`. */
export function campaignsApi(o: CampaignsApiOptions): CampaignsApi {
  const { store } = o;
  const validated = (spec: CampaignSpec, name: string | undefined): Campaign => {
    const campaign = campaignOf(spec, name ?? 'campaign', o.defaultTimeZone);
    const flows = o.flowIds();
    if (!flows.includes(campaign.flow))
      throw new CampaignError(
        'BOTFLOW_CAMPAIGN_INVALID',
        `flow: "${campaign.flow}" is not loaded; flows: ${flows.join(', ') || '(none)'}`,
      );
    return campaign;
  };
  const find = async (idOrName: string): Promise<CampaignRow> => {
    const direct = await store.get(idOrName);
    if (direct) return direct;
    const named = (await store.list()).filter((c) => c.name === idOrName);
    const latest = named[named.length - 1];
    if (!latest) throw new CampaignError('BOTFLOW_CAMPAIGN_NOT_FOUND', `no campaign "${idOrName}"`);
    return latest;
  };
  const report = async (row: CampaignRow): Promise<CampaignReport> => ({
    id: row.id,
    name: row.name,
    flow: row.flowId,
    status: row.status,
    recipients: row.recipients,
    createdAt: row.createdAt,
    startAt: row.startAt,
    updatedAt: row.updatedAt,
    ...(await store.figures(row.id)),
  });
  const move = async (idOrName: string, from: CampaignStatus[], to: CampaignStatus) => {
    const row = await find(idOrName);
    if (!(await store.setStatus(row.id, from, to, o.now())))
      throw new CampaignError(
        'BOTFLOW_CAMPAIGN_STATE',
        `campaign ${row.id} is ${row.status}: it cannot be ${to}`,
      );
    if (to === 'running') o.wake();
    return report((await store.get(row.id))!);
  };
  return {
    async plan(spec, options = {}) {
      const campaign = validated(spec, options.name);
      const { count, sample } = await store.match(
        campaign.segment,
        o.now(),
        options.sample ?? 5,
        campaign.quiet?.timeZoneVar,
      );
      return { campaign, count, sample };
    },
    async start(spec, options = {}) {
      const campaign = validated(spec, options.name);
      const running = (await store.list()).find(
        (c) => c.name === campaign.name && (c.status === 'running' || c.status === 'paused'),
      );
      if (running)
        throw new CampaignError(
          'BOTFLOW_CAMPAIGN_STATE',
          `campaign "${campaign.name}" is already ${running.status} (${running.id}): cancel it first`,
        );
      const now = o.now();
      const id = `${campaign.name}-${now.toString(36)}${randomBytes(2).toString('hex')}`;
      await store.create(
        {
          id,
          name: campaign.name,
          flowId: campaign.flow,
          spec: JSON.stringify(campaign),
          status: 'running',
          createdAt: now,
          startAt: campaign.startAt ?? now,
        },
        campaign.segment,
        campaign.quiet?.timeZoneVar,
      );
      o.wake();
      return report((await store.get(id))!);
    },
    pause: (idOrName) => move(idOrName, ['running'], 'paused'),
    resume: (idOrName) => move(idOrName, ['paused'], 'running'),
    cancel: (idOrName) => move(idOrName, ['running', 'paused'], 'cancelled'),
    status: async (idOrName) => report(await find(idOrName)),
    list: async () => Promise.all((await store.list()).map(report)),
    recipients: async (idOrName, query = {}) => store.recipients((await find(idOrName)).id, query),
    release: (at) => o.release(at),
  };
}
