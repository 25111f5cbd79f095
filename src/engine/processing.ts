/**
 * The batch loop of an engine: the planner (ready once the button secret is read and the flow versions
 * recorded), the loop that plans and commits batches of inbox events, and the one place that schedules it
 * on the event loop.
 */
import type { Logger } from 'pino';
import { isBotflowError } from '../errors/index.ts';
import type { EngineStore, Partitions } from '../store/ports/engine.ts';
import { andThen, type MaybePromise } from '../store/ports/index.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import type { EngineOptions } from './engine-options.ts';
import type { RunState } from './engine-parts.ts';
import { BatchLoop } from './lane/batches.ts';
import { BatchPlanner, type EventOutcome } from './lane/processor.ts';
import type { SessionCache } from './lane/session-cache.ts';
import { recordFlowVersions, versionRestorer } from './pinned-versions.ts';
import { ButtonSigner } from './step/buttons.ts';
import type { Clock } from './step/clock.ts';
import type { FlowSet } from './step/flow-set.ts';

type PlannerOptions = 'batchSize' | 'secret' | 'staleText' | 'botUsername' | 'funnelSamples' | 'rebuildFlow';

/** What the batch loop needs from the rest of the engine. */
export interface ProcessingOptions {
  store: EngineStore;
  flows: FlowSet;
  cache: SessionCache;
  member: string;
  clock: Clock;
  logger?: Logger | undefined;
  options: Pick<EngineOptions<boolean>, PlannerOptions>;
  run: RunState;
  partitions(): Partitions;
  /** Hears the outcomes of every committed batch. */
  report(outcomes: EventOutcome[]): void;
  /** Nothing waits: arm the timer wake-up. */
  empty(): void;
  /** A batch's partition moved to another process: tick the leases at once. */
  leaseLost(): void;
}

/** The batch side of an engine. */
export interface Processing {
  readonly loop: BatchLoop;
  /** Ready on a synchronous store at once; on PostgreSQL once the secret is read. */
  readonly prepared: MaybePromise<void>;
  /** Runs the loop soon (once, however often asked before it runs) while the engine runs. */
  schedule(): void;
}

/** The planner and the batch loop of an engine over `o.store`. */
export function batchProcessing(o: ProcessingOptions): Processing {
  const { store, flows, logger, run, options } = o;
  const now = () => o.clock.now();
  const restore = versionRestorer((v) => store.flowSources(v), flows, logger, options.rebuildFlow);
  let planner: BatchPlanner | undefined;
  let queued = false;
  function schedule(): void {
    if (!run.running || queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      run.lastLoopAt = wallNow();
      if (run.running) loop.pump();
    });
  }
  const loop = new BatchLoop({
    store,
    get planner() {
      return planner!;
    },
    ...{ cache: o.cache, member: o.member, partitions: o.partitions, now, restore, logger },
    batchSize: options.batchSize ?? 256,
    report: o.report,
    wake: (delayMs = 0) => (delayMs > 0 ? o.clock.setTimer(schedule, delayMs) : schedule()),
    empty: o.empty,
    leaseLost(error) {
      if (!isBotflowError(error, 'BOTFLOW_LEASE_LOST')) return false;
      logger?.warn('a partition of the batch moved to another process; nothing of it was written');
      o.leaseLost();
      return true;
    },
  });
  const prepared: MaybePromise<void> = andThen(options.secret ?? store.buttonSecret(now()), (secret) =>
    andThen(recordFlowVersions(store, flows, now(), logger, options.rebuildFlow), () => {
      planner = new BatchPlanner({
        cache: o.cache,
        load: (key) => loop.load(key),
        flows,
        signer: new ButtonSigner(secret),
        now,
        logger,
        staleText: options.staleText ?? 'This menu is no longer active.',
        ...{ botUsername: options.botUsername, funnelSamples: options.funnelSamples },
      });
    }),
  );
  if (prepared instanceof Promise) prepared.catch(() => {}); // whoever awaits it (start, tick) meets a failure
  flows.onAdd((flow) => {
    void Promise.resolve()
      .then(() => store.recordFlowVersion(flow.id, flow.version, now(), flow.source))
      .catch(() => {});
  });
  return { loop, prepared, schedule };
}
