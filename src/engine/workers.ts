/**
 * The engine's two workers over its store: the dispatcher (sends the outbox while this process holds the
 * dispatcher role; one process always does) and the task runner (runs the tasks of the partitions this
 * process handles).
 */
import type { Logger } from 'pino';
import { Dispatcher, type DispatchOutcome } from '../dispatch/dispatcher.ts';
import type { CallGateway, MediaUploader } from '../dispatch/send.ts';
import { type TaskOutcome, TaskRunner } from '../dispatch/tasks/runner.ts';
import { SharedTaskRunner } from '../dispatch/tasks/shared-runner.ts';
import type { TaskDefinition } from '../dispatch/tasks/task.ts';
import type { Clock } from '../store/ports/clock.ts';
import { PgTasks } from '../store/postgres/tasks.ts';
import type { EngineStore } from './commit/store.ts';

/** The dispatcher as the engine drives it. */
export interface Sender {
  readonly inFlight: number;
  start(): void;
  /** This process holds the dispatcher role: send. */
  lead(): void;
  /** It no longer does: claim nothing more. */
  follow(): void;
  wake(): void;
  idle(): Promise<void>;
  stop(waitMs: number): Promise<void>;
}

/** The task runner as the engine drives it. */
export interface Runner {
  readonly inFlight: number;
  start(): void;
  setPartitions(partitions: readonly number[]): void;
  wake(): void;
  idle(): Promise<void>;
  stop(waitMs: number): Promise<void>;
}

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

/** The dispatcher (when calls can go out) and the task runner of `store`. */
export function workersFor(
  store: EngineStore & { db?: import('better-sqlite3').Database; pg?: { pool: import('pg').Pool } },
  o: WorkerOptions,
): { dispatcher: Sender | undefined; runner: Runner } {
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
  const now = () => o.clock.now();
  if (store.kind === 'sqlite') {
    const db = store.db!;
  const runner = new TaskRunner({
      db,
      tasks: o.tasks,
      clock: o.clock,
      concurrency: o.taskConcurrency,
      gateway: o.gateway,
      logger: o.logger,
      onResult: o.onResult,
      onOutcome: o.onTask,
    });
    return { dispatcher, runner: Object.assign(runner, { setPartitions() {} }) };
  }
  const pool = store.pg!.pool;
  const runner = new SharedTaskRunner({
    store: new PgTasks(pool),
    member: o.member,
    tasks: o.tasks,
    clock: o.clock,
    concurrency: o.taskConcurrency,
    gateway: o.gateway,
    logger: o.logger,
    onResult: o.onResult,
    onOutcome: o.onTask,
  });
  return { dispatcher, runner };
}
