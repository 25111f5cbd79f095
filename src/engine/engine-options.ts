/** What `createEngine` takes and what it gives: the same on SQLite and PostgreSQL. */

import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import type { OperationName } from '../client/operations.ts';
import type { UploadClient } from '../client/upload.ts';
import type { CallGateway, MediaUploader } from '../dispatch/send.ts';
import type { TaskDefinition } from '../dispatch/tasks/task.ts';
import type { ConversationKeyStrategy } from '../inbox/keys.ts';
import type { EngineStore } from '../store/ports/engine.ts';
import type { WriterThread } from '../store/sqlite/writer-thread.ts';
import type { StepLogRow } from '../store/step-log.ts';
import type { TimerGrace } from '../store/timer-service.ts';
import type { CampaignsApi } from './campaigns/api.ts';
import type { EngineEventSender } from './events.ts';
import type { SessionInspector } from './inspect.ts';
import type { Role } from './lane/ownership.ts';
import type { EventOutcome } from './lane/processor.ts';
import type { EngineEvents } from './listeners.ts';
import type { Clock } from './step/clock.ts';
import type { FlowDefinition } from './step/contract.ts';
import type { FlowSet } from './step/flow-set.ts';

/** The API client parts the engine uses: calls (when no scheduler is given) and uploads. */
export type EngineApi = Partial<UploadClient> & {
  call(op: OperationName, args: Record<string, unknown>): Promise<unknown>;
};

/** How to build an engine: over `db` (SQLite, one process) or `store` (`sqliteStore`, `postgresStore`). */
export interface EngineOptions<Sync extends boolean = true> {
  /** An open SQLite database (`openDatabase`: migrations applied); short for `store: sqliteStore(db)`. */
  db?: Database.Database;
  /** The database, through its adapter: `postgresStore(await openPostgres({ url }))` for several processes. */
  store?: EngineStore<Sync>;
  /** The Bot API client: calls go straight to it when no scheduler is given; uploads use it. */
  api?: EngineApi;
  /** The throttled scheduler every call goes through (recommended). */
  scheduler?: CallGateway & { run?: unknown };
  /** Overrides how `upload_and_send` effects upload their media (default: `uploadMedia` with `api`). */
  upload?: MediaUploader;
  /** The flows to run: a `FlowSet` (several versions per flow) or a list (later entries are newer). */
  flows: FlowSet | FlowDefinition[];
  /** Secret for signing button payloads; by default generated once and kept in the database. */
  secret?: string;
  /** Reads the time (ms); the testing tools pass a virtual clock. Ignored when `clock` is given. */
  now?: () => number;
  /** Time and waiting, replaceable as a whole: timers, reminders, task retries and pauses all use it. */
  clock?: Clock;
  logger?: Logger;
  /** What to do with timers that came due while no process ran them. */
  timerGrace?: TimerGrace;
  /** The bot's username (`getMe`): in groups, `/start@other_bot` and `@other_bot /start` are not ours. */
  botUsername?: string;
  /**
   * Keep what people typed that nothing took as samples in the step log, the first 200 characters of each
   * (default true); false keeps only the counts (config `funnel.samples`, docs/running.md).
   */
  funnelSamples?: boolean;
  /** Answer to a press on a keyboard that no running step owns (default "This menu is no longer active."). */
  staleText?: string;
  /** Inbox events per transaction (default 256). */
  batchSize?: number;
  /**
   * Sessions kept in memory after this process wrote them (default 10,000; 0 turns the cache off). The
   * next event of a cached conversation skips reading and restoring its snapshot. Bounded: memory does
   * not grow with the number of conversations.
   */
  sessionCacheSize?: number;
  /**
   * A writer thread on the same SQLite file (`startWriterThread`): a started engine plans the next batch
   * while the thread commits the previous one, using a second core. `processPending()` and `tick()` still
   * commit on `db`. With `store`, give it to `sqliteStore` instead.
   */
  writer?: WriterThread;
  /** Calls handed to the scheduler at once (default 256). */
  maxInFlight?: number;
  /** How often a started engine looks for inbox rows nobody told it about (default 1000 ms). */
  pollIntervalMs?: number;
  /**
   * Rebuilds a flow version from the `source` stored with it (flow files: `rebuildFlow` of src/flows).
   * Running sessions pinned to a version `flows` lacks are given that version back from its stored source,
   * so they go on after a restart with a changed flow file (or during a rolling deploy). Without it, or
   * when a source is missing or no longer builds, they are migrated if the latest version maps them, else
   * warned about.
   */
  rebuildFlow?: (source: string) => FlowDefinition;
  /** The team's tasks flows start (`do: [{task: …}]`), by name: run by the engine's task runner. */
  tasks?: Readonly<Record<string, TaskDefinition>>;
  /** Tasks running at once in this process (default 16); apart from the platform's request budget. */
  taskConcurrency?: number;
  /** Several processes (a store with leases): this process's name among the others (default host:pid:random). */
  member?: string;
  /** How event addresses become conversation keys: the `conversationKey` setting (default `user-in-chat`). */
  conversationKey?: ConversationKeyStrategy;
  /** Several processes: heartbeat and lease renewal (default 1000 ms). */
  tickMs?: number;
  /** Time between the campaign runner's rounds, on the engine's clock (default 200 ms). */
  campaignIntervalMs?: number;
  /** The bot's time zone: quiet hours of campaigns that name none, for people without one (default UTC). */
  timeZone?: string;
  /** Several processes: lease time (default 3000 ms); a dead process's partitions move after it. */
  leaseMs?: number;
  /** Several processes: take part in the dispatcher election (default true). */
  dispatcher?: boolean;
  /** Hears this process's role whenever it changes (partitions, dispatcher). */
  onRole?: (role: Role) => void;
}

export type { EngineEvents } from './listeners.ts';

/** `T` now on a synchronous store (SQLite), a promise of it on PostgreSQL. */
export type Answer<Sync extends boolean, T> = Sync extends true ? T : Promise<T>;

/** A running (or ready) engine; `Sync` is true over SQLite, whose answers are immediate. */
export interface Engine<Sync extends boolean = true> {
  /** This process's name among the others (one process: its only member). */
  readonly member: string;
  /** Which database it runs on. */
  readonly store: EngineStore<Sync>;
  /**
   * Processes the inbox as events arrive, fires timers when due and sends the outbox. Over several
   * processes, first joins the others (takes its share of partitions, maybe the dispatcher role).
   */
  start(): Answer<Sync, void>;
  /** Stops processing and waits up to `waitMs` (a duration, default 10 s) for calls in flight; gives leases back. */
  stop(options?: { waitMs?: number }): Promise<void>;
  /** Tells a started engine that intake committed inbox rows. */
  notify(): void;
  /** Handles pending inbox events until none is left (tests, tools); returns what became of each. */
  processPending(): Answer<Sync, EventOutcome[]>;
  /**
   * Fires the timers due at `now` (default: the clock's time), releases the campaign recipients due (in the
   * process that sends), then handles pending events. Virtual clocks.
   */
  tick(now?: number): Answer<Sync, EventOutcome[]>;
  /** Resolves when the inbox is empty and no call or task is in flight (a started engine). */
  drain(): Promise<void>;
  /** True while an event is handled, a call or a task is in flight, or a commit is under way (idle checks). */
  busy(): boolean;
  /**
   * Deletes settled outbox rows, timers and tasks older than `olderThanMs` (default 7 days), and the funnel's
   * step log older than `stepLogOlderThanMs` (default 90 days), in small chunks. The inbox has its own
   * retention (intake's store). Sessions are kept. Any process may run it.
   */
  prune(
    olderThanMs?: number,
    stepLogOlderThanMs?: number,
  ): Answer<Sync, Record<'inbox' | 'outbox' | 'timers' | 'tasks' | 'stepLog', number>>;
  /**
   * External events: `send` stores one durably in the inbox (checked first: `EventInvalidError` with every
   * problem, nothing stored), in the conversation's order; `check` is the same rule without sending.
   */
  events: EngineEventSender;
  /** Campaigns: a flow started for a segment of people, at a rate, durably (docs/campaigns.md). */
  campaigns: CampaignsApi;
  /** Support: list, inspect, end and jump sessions, move their timers, plan a deploy (both databases). */
  sessions: SessionInspector<Sync>;
  /** The funnel's step log of a flow (or all) since `since`, a page at a time (runtime/funnel.ts tallies it). */
  stepLog(query?: { flowId?: string; since?: number }): AsyncIterable<StepLogRow>;
  /** The flows this engine runs, every version it was given (add one to hot-reload). */
  flows: FlowSet;
  /** What this process holds now (one process: every partition, and the dispatcher). */
  role(): Role;
  /** True once it has joined and its last lease renewal is recent (readiness). */
  ready(): boolean;
  /** True while it runs (liveness). */
  alive(): boolean;
  /** Listens to engine events; returns a function that stops listening. */
  on<K extends keyof EngineEvents>(event: K, listener: (payload: EngineEvents[K]) => void): () => void;
}
