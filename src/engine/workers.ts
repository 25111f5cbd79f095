/**
 * The engine's two workers over its store: the dispatcher (sends the outbox while this process holds the
 * dispatcher role; one process always does) and the task runner (runs the tasks of the partitions this
 * process handles).
 */
import type { Logger } from 'pino';
import { Dispatcher, type DispatchOutcome } from '../dispatch/dispatcher.ts';
import type { CallGateway, MediaUploader } from '../dispatch/send.ts';
import { type TaskOutcome, TaskRunner } from '../dispatch/tasks/runner.ts';
import type { TaskDefinition } from '../dispatch/tasks/task.ts';
import type { Clock } from '../store/ports/clock.ts';
import type { EngineStore } from '../store/ports/engine.ts';
import type { EventOutcome } from './lane/outcome.ts';
import type { EngineListeners } from './listeners.ts';

/** What the workers need from the engine. */
export interface WorkerOptions {
  member: string;
  clock: Clock;
  gateway?: CallGateway | undefined;
  upload?: MediaUploader | undefined;
  logger?: Logger | undefined;
  maxInFlight: number;
  tasks: Readonly<Record<string, TaskDefinition>>;
  taskConcurrency: number;
  onResult(): void;
  onOutcome(outcome: DispatchOutcome): void;
  onTask(outcome: TaskOutcome): void;
}

/** How often a runner among several looks for tasks a dead process left running (ms). */
const SHARED_TASK_POLL_MS = 500;

/** The dispatcher (when calls can go out) and the task runner of `store`. */
export function workersFor(
  store: EngineStore,
  o: WorkerOptions,
): { dispatcher: Dispatcher | undefined; runner: TaskRunner } {
  const dispatcher = o.gateway
    ? new Dispatcher({
        outbox: store.outbox,
        member: o.member,
        gateway: o.gateway,
        upload: o.upload,
        clock: o.clock,
        logger: o.logger,
        maxInFlight: o.maxInFlight,
        onResult: o.onResult,
        onOutcome: o.onOutcome,
      })
    : undefined;
  const runner = new TaskRunner({
    port: store.taskPort(o.member),
    clock: o.clock,
    // Among several processes the partitions come with the first lease tick; one process runs them all.
    partitions: store.leases ? [] : 'all',
    ...(store.leases ? { pollMs: SHARED_TASK_POLL_MS } : {}),
    tasks: o.tasks,
    concurrency: o.taskConcurrency,
    gateway: o.gateway,
    logger: o.logger,
    onResult: o.onResult,
    onOutcome: o.onTask,
  });
  return { dispatcher, runner };
}

/** What reporting a batch's outcomes needs. */
export interface ReportOptions {
  store: EngineStore;
  events: EngineListeners;
  dispatcher: Dispatcher | undefined;
  runner: TaskRunner;
  /** True while this process sends. */
  leads(): boolean;
}

/**
 * Hears the outcomes of a committed batch: tells the listeners, wakes the task runner for new tasks and the
 * dispatcher for new calls (or, when another process sends, tells it through the store).
 */
export function outcomeReporter(o: ReportOptions): (outcomes: EventOutcome[]) => void {
  return (outcomes) => {
    let calls = 0;
    let tasks = 0;
    for (const outcome of outcomes) {
      calls += outcome.calls;
      tasks += outcome.tasks ?? 0;
      o.events.emit(outcome.status === 'failed' ? 'error' : 'step', outcome);
    }
    if (tasks > 0) o.runner.wake();
    if (calls === 0) return;
    if (o.leads()) o.dispatcher?.wake();
    else void o.store.announceOutbox?.().catch(() => {});
  };
}
