/** The operations of a running deployment (`bots`, `add`, `remove`, `pause`, `resume`, `refresh`), over its catalog. */
import type { BotRecord, BotsCatalog } from '../store/ports/bots-catalog.ts';
import { type BotSlot, type DeploymentBot, shownSlot } from './deployment-bot.ts';

/** A running deployment. */
export interface RunningDeployment {
  /** Every bot of the catalog that is not removed, with where it stands. */
  bots(): DeploymentBot[];
  /** Where the shared server listens (webhooks, `/healthz`, `/readyz`), when one does. */
  address?: string;
  /** Serves a bot of `bots:` (or of the catalog) again after `remove`; resolves once it started or failed. */
  add(name: string): Promise<DeploymentBot>;
  /** Stops serving the bot; its data stays (its file or schema). */
  remove(name: string): Promise<void>;
  /** Stops the bot's app gracefully; its timers and campaigns wait in its database. */
  pause(name: string): Promise<DeploymentBot>;
  /** Starts a paused or failed bot again. */
  resume(name: string): Promise<DeploymentBot>;
  /** Catches up with the catalog now (the deployment also does every `catalogPollMs`). */
  refresh(): Promise<void>;
  /** Stops every bot and the server. */
  stop(): Promise<void>;
}

/** What the operations need of the deployment (src/runtime/deployment.ts). */
export interface Deployment {
  readonly catalog: BotsCatalog;
  readonly slots: Map<string, BotSlot>;
  all(): BotSlot[];
  known(name: string): Promise<BotRecord>;
  start(slot: BotSlot, record: BotRecord): Promise<void>;
  refresh(): Promise<void>;
  shown(name: string): DeploymentBot;
}

/** The operations of a running deployment, over the catalog. */
export function operations(deployment: Deployment): Omit<RunningDeployment, 'address' | 'stop'> {
  const { catalog } = deployment;
  return {
    bots: () => deployment.all().map(shownSlot),
    async add(name) {
      const record = await deployment.known(name);
      if (record.removedAt !== undefined) {
        // Removing it ended its subscription: made again when it is served again.
        const { removedAt: _removed, subscription: _subscription, ...kept } = record;
        await catalog.add(kept);
      }
      await deployment.refresh();
      return deployment.shown(name);
    },
    async remove(name) {
      await catalog.remove(name);
      await deployment.refresh();
    },
    async pause(name) {
      await catalog.update(name, { paused: true, pausedReason: 'paused' });
      await deployment.refresh();
      return deployment.shown(name);
    },
    async resume(name) {
      await catalog.update(name, { paused: false });
      const slot = deployment.slots.get(name);
      if (slot?.status === 'failed') await deployment.start(slot, await deployment.known(name));
      await deployment.refresh();
      return deployment.shown(name);
    },
    refresh: () => deployment.refresh(),
  };
}
