/**
 * The engine's campaigns: the API (`engine.campaigns`) and the runner's rounds on the engine's clock while
 * the engine runs, and at each `engine.tick()` (a virtual clock whose timers never fire moves campaigns as
 * it moves timers). Only the process that sends (one process; among several, the dispatcher lease holder)
 * runs the rounds, so one runner releases for all of them.
 */
import type { Logger } from 'pino';
import type { EngineStore } from '../../store/ports/engine.ts';
import type { MaybePromise } from '../../store/ports/index.ts';
import type { Clock, TimerHandle } from '../step/clock.ts';
import type { FlowSet } from '../step/flow-set.ts';
import { type CampaignsApi, campaignsApi } from './api.ts';
import { CampaignRunner } from './runner.ts';

/** How the engine's campaigns run. */
export interface CampaignLoopOptions {
  store: EngineStore;
  clock: Clock;
  flows: FlowSet;
  logger?: Logger | undefined;
  /** Time between the runner's rounds (default 200 ms). */
  intervalMs?: number | undefined;
  /** The time zone of quiet hours when neither the person nor the campaign names one (default UTC). */
  timeZone?: string | undefined;
  /** True while this process is the one that sends. */
  leads(): boolean;
  /** Entries were released: plan them. */
  released(): void;
}

/** The campaigns API and the runner's loop. */
export function campaignLoop(o: CampaignLoopOptions): {
  api: CampaignsApi;
  /** A round at `at` when this process sends (`engine.tick()` on a virtual clock); at once on SQLite. */
  round(at: number): MaybePromise<number>;
  start(): void;
  stop(): Promise<void>;
} {
  const now = () => o.clock.now();
  const runner = new CampaignRunner({
    store: o.store.campaigns,
    now,
    logger: o.logger,
    released: o.released,
  });
  let handle: TimerHandle | undefined;
  let running = false;
  let round: Promise<unknown> = Promise.resolve();
  const next = () => {
    if (running) handle = o.clock.setTimer(go, o.intervalMs ?? 200);
  };
  function go(): void {
    handle = undefined;
    if (!running) return;
    if (!o.leads()) {
      next();
      return;
    }
    round = Promise.resolve()
      .then(() => runner.tick())
      .catch((error: unknown) =>
        o.logger?.error({ err: error }, 'campaign round failed; trying again shortly'),
      )
      .finally(next);
  }
  const api = campaignsApi({
    store: o.store.campaigns,
    now,
    flowIds: () => o.flows.current().map((f) => f.id),
    defaultTimeZone: o.timeZone,
    release: async (at) => runner.tick(at),
    wake: () => {
      if (running && handle !== undefined) {
        o.clock.clearTimer(handle);
        go();
      }
    },
  });
  return {
    api,
    round: (at) => (o.leads() ? runner.tick(at) : 0),
    start() {
      if (running) return;
      running = true;
      go();
    },
    async stop() {
      running = false;
      if (handle !== undefined) o.clock.clearTimer(handle);
      handle = undefined;
      await round;
    },
  };
}
