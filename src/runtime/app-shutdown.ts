/**
 * What `startApp` has started, and how it stops: the steps in reverse start order, except that the
 * scheduler stops sending first (what was never sent returns to the outbox, what was sent is recorded while
 * the database is open, and nothing is sent that cannot be).
 */
import type { BotApi } from '../client/client.ts';
import type { Scheduler } from '../client/scheduler/scheduler.ts';
import type { SharedBudget } from '../client/scheduler/shared-budget.ts';
import type { Engine } from '../engine/engine.ts';
import type { Role } from '../engine/lane/ownership.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import type { IntakeHandle, SandboxHandle, StartAppOptions } from './app-parts.ts';
import type { AppStore } from './app-store.ts';
import type { Config } from './config.ts';
import type { ShutdownStep } from './shutdown.ts';

/** A server a part listens with. */
export interface Listening {
  address: string;
  close(): Promise<void>;
}

/** The parts started so far, each set once it runs: stopping stops those set. */
export interface Started {
  sandbox?: SandboxHandle | undefined;
  api?: BotApi | undefined;
  database?: AppStore | undefined;
  budget?: SharedBudget | undefined;
  scheduler?: Scheduler | undefined;
  engine?: Engine<boolean> | undefined;
  health?: Listening | undefined;
  intake?: IntakeHandle | undefined;
  /** The long poll, run by the process that holds the dispatcher role (polling mode). */
  poller?: IntakeHandle | undefined;
  eventsServer?: Listening | undefined;
  watcher?: { close(): void } | undefined;
  pruning?: ReturnType<typeof setInterval> | undefined;
  stopProgress: () => void;
  /** Shutting down: not ready, whatever the engine says. */
  draining: boolean;
  /** Hears the process's role when it changes (polling mode: the dispatcher polls). */
  onRole: (role: Role) => void;
}

/** Nothing started yet. */
export function nothingStarted(): Started {
  return { stopProgress: () => {}, draining: false, onRole: () => {} };
}

/** Answers not ready from now on, then waits `ms` (less a second before `deadline`) for the balancer. */
async function drain(started: Started, ms: number, deadline: number): Promise<void> {
  started.draining = true;
  const wait = Math.min(ms, deadline - wallNow() - 1000);
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** The steps that stop what `started` holds when they run, in order. */
export function shutdownSteps(config: Config, options: StartAppOptions, started: Started): ShutdownStep[] {
  const s = started;
  return [
    {
      // Readiness first: `/readyz` answers 503 while intake still takes deliveries, so that a load balancer
      // stops sending here before the receiver closes (`shutdown.drainMs`).
      name: 'answer not ready',
      run: (deadline) => drain(s, config.shutdown.drainMs, deadline),
    },
    { name: 'stop the events endpoint', started: () => !!s.eventsServer, run: () => s.eventsServer?.close() },
    { name: 'stop intake', started: () => !!s.intake, run: () => s.intake?.stop() },
    { name: 'stop polling', started: () => !!s.poller, run: () => s.poller?.stop() },
    { name: 'stop watching flows', started: () => !!s.watcher, run: () => s.watcher?.close() },
    { name: 'stop pruning', started: () => !!s.pruning, run: () => clearInterval(s.pruning) },
    {
      name: 'finish current steps and sends in flight',
      started: () => !!s.engine,
      run: (deadline) => finishSteps(config, options, s, deadline),
    },
    { name: 'stop health checks', always: true, started: () => !!s.health, run: () => s.health?.close() },
    { name: 'close the recording', always: true, run: () => options.recorder?.close() },
    { name: 'close database', always: true, started: () => !!s.database, run: () => s.database?.close() },
    { name: 'stop scheduler', always: true, started: () => !!s.scheduler, run: () => s.scheduler?.close() },
    { name: 'close API client', started: () => !!s.api, run: () => s.api?.close() },
    { name: 'stop sandbox', always: true, started: () => !!s.sandbox, run: () => s.sandbox?.close() },
  ];
}

/** The engine finishes its current steps and its sends in flight (until `deadline`); nothing new goes out. */
async function finishSteps(config: Config, options: StartAppOptions, s: Started, deadline: number) {
  const { engine } = s;
  s.stopProgress();
  // Nothing new goes out from here: calls still queued go back to the outbox (pending, sent at the
  // next start), calls in flight get until the deadline and their answers are recorded below.
  s.scheduler?.close();
  s.budget?.close();
  const sendWaitMs = Math.min(config.shutdown.sendDeadlineMs, deadline - wallNow() - 500);
  await engine?.stop({ waitMs: Math.max(0, sendWaitMs) });
  const left = await Promise.resolve(engine?.store.pendingCount(engine.role().partitions)).catch(() => 0);
  if (left && !s.database?.shared)
    options.logger.info({ pending: left }, `${left} accepted event(s) stay pending for the next start`);
}
