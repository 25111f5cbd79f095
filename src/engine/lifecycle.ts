/**
 * An engine's life: start (join the others, then the workers, campaigns, timers and poll), stop (in the
 * reverse order, leases given back last), and the work a caller drives by hand (`processPending`, `tick`
 * on a virtual clock, `drain`).
 */
import type { Dispatcher } from '../dispatch/dispatcher.ts';
import type { TaskRunner } from '../dispatch/tasks/runner.ts';
import type { EngineStore } from '../store/ports/engine.ts';
import { andThen } from '../store/ports/index.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import type { campaignLoop } from './campaigns/loop.ts';
import type { Coordination } from './coordination.ts';
import type { Answer, Engine } from './engine-options.ts';
import type { RunState } from './engine-parts.ts';
import type { EventOutcome } from './lane/processor.ts';
import type { Processing } from './processing.ts';
import type { Clock } from './step/clock.ts';
import type { EngineTimers } from './timers.ts';

/** The parts an engine's life moves. */
export interface LifeParts {
  store: EngineStore;
  clock: Clock;
  logger?: { warn(message: string): void } | undefined;
  run: RunState;
  coordination: Coordination;
  processing: Processing;
  timers: EngineTimers;
  dispatcher: Dispatcher | undefined;
  runner: TaskRunner;
  campaigns: Pick<ReturnType<typeof campaignLoop>, 'start' | 'stop' | 'round'>;
}

type Life = Pick<Engine<boolean>, 'start' | 'stop' | 'processPending' | 'tick' | 'drain'>;

/** `start`, `stop`, `processPending`, `tick` and `drain` of an engine made of `p`. */
export function lifecycle(p: LifeParts): Life {
  const { store, clock, run, coordination, processing, timers, dispatcher, runner, campaigns } = p;
  const { loop, prepared } = processing;
  const graceAll = (at: number) => {
    if (run.graced) return;
    run.graced = true;
    return timers.applyGrace('all', at);
  };
  function begin(): void {
    run.running = true;
    run.joined = true;
    run.lastLoopAt = wallNow();
    if (!coordination.ownership) dispatcher?.start(); // one process always sends; among several, the lease holder does
    runner.start();
    campaigns.start();
    if (!dispatcher)
      p.logger?.warn('engine started without an api client or scheduler: calls stay in the outbox');
    timers.wake();
    timers.poll();
  }
  const life: Life = {
    start(): Answer<boolean, void> {
      if (run.running) return (store.synchronous ? undefined : Promise.resolve()) as Answer<boolean, void>;
      if (!coordination.ownership) {
        graceAll(clock.now());
        begin();
        return undefined as Answer<boolean, void>;
      }
      return (async () => {
        await prepared;
        run.running = true;
        await coordination.join();
        begin();
        coordination.begin();
      })() as Answer<boolean, void>;
    },
    async stop(stopOptions = {}) {
      const was = run.running;
      run.running = false;
      timers.stop();
      await coordination.halt();
      await campaigns.stop();
      await loop.idle(); // batches handed to the store finish (or fail) before the engine stops
      dispatcher?.follow();
      await Promise.all([
        dispatcher?.stop(stopOptions.waitMs ?? 10_000),
        runner.stop(stopOptions.waitMs ?? 10_000),
      ]);
      await coordination.leave(was);
    },
    processPending() {
      return andThen(prepared, () => loop.processPending()) as Answer<boolean, EventOutcome[]>;
    },
    tick(at = clock.now()) {
      return andThen(store.synchronous ? prepared : timers.firing().then(() => prepared), () => {
        const first = coordination.ownership ? undefined : graceAll(at);
        run.graced = true;
        return andThen(first, () =>
          andThen(timers.fireDue(at), () => {
            runner.wake(); // retries that came due on a virtual clock, and campaigns' releases:
            return andThen(campaigns.round(at), () => loop.processPending());
          }),
        );
      }) as Answer<boolean, EventOutcome[]>;
    },
    async drain() {
      for (;;) {
        if (!store.synchronous) await timers.firing(); // PostgreSQL: timers the wake-up is moving in
        if (run.running) {
          loop.pump();
          await loop.idle();
        } else await life.processPending();
        await dispatcher?.idle();
        await runner.idle();
        await dispatcher?.idle(); // calls planned from task results that came in meanwhile
        const busy = (dispatcher?.inFlight ?? 0) > 0 || loop.inFlight > 0 || runner.inFlight > 0;
        if (!busy && (await store.pendingCount(coordination.partitions())) === 0) return;
        if (run.running) await new Promise((resolve) => setTimeout(resolve, store.synchronous ? 0 : 20));
      }
    },
  };
  return life;
}
