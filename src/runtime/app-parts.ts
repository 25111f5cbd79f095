/**
 * The parts `startApp` composes, described by what the composition needs of each (their own modules own
 * the full interfaces). `defaultParts()` (default-parts.ts) returns the real ones.
 */
import type Database from 'better-sqlite3';
import type { FastifyPluginAsync, FastifyPluginCallback } from 'fastify';
import type { Logger } from 'pino';
import type { BotApi } from '../client/client.ts';
import type { Scheduler } from '../client/scheduler/scheduler.ts';
import type { Engine } from '../engine/engine.ts';
import type { EngineEventSender } from '../engine/events.ts';
import type { Role } from '../engine/lane/ownership.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import type { EventSender } from '../inbox/event-entry.ts';
import type { InboxCommit } from '../inbox/inbox-writer.ts';
import type { ConversationKeyStrategy } from '../inbox/keys.ts';
import type { PollingStore } from '../intake/polling.ts';
import type { EngineStore } from '../store/ports/engine.ts';
import type { SharedPostgres } from '../store/postgres/shared.ts';
import type { Recorder } from './recorder.ts';
import type { BotIdentity } from './self-check.ts';
import type { StepOutcome } from './shutdown.ts';

/**
 * More of the playground, from a layer above the runtime (the CLI wires it): routes on the sandbox, and the
 * engine and flows once they run (e.g. "save this chat as a transcript test", src/testing).
 */
export interface PlaygroundExtension {
  plugin: FastifyPluginAsync;
  attach(engine: Engine<boolean>, loaded: LoadedFlows, flowsDir: string): void;
  flowsChanged?(loaded: LoadedFlows): void;
}

/** A running sandbox (embedded default). */
export interface SandboxHandle {
  baseUrl: string;
  token: string;
  /**
   * The token a developer may see (start line, `/_sandbox/info`, the playground): set only for the
   * embedded sandbox's own token on a loopback interface. Never a platform's token.
   */
  shownToken?: string;
  /** The web chat page, when the sandbox serves one. */
  webChatUrl?: string;
  /** Lets the web chat's side panel show the engine, once it runs. */
  attachEngine?(engine: Engine<boolean>, loaded: LoadedFlows): void;
  /** Tells the side panel that flows were reloaded (or failed to). */
  flowsChanged?(loaded: LoadedFlows): void;
  /** Lets the side panel send external events ("Send event"), once the bot takes them. */
  attachEvents?(sender: EventSender): void;
  /** The token of the hosted bot `name` (started with `bots`); undefined for a name it does not host. */
  tokenOf?(name: string): string | undefined;
  close(): Promise<void>;
}

/** Something that delivers updates into the inbox and can be stopped. */
export interface IntakeHandle {
  /** Where it listens (webhook), for the start line. */
  address?: string;
  /** Stops accepting; resolves when every update it accepted is committed. */
  stop(): Promise<void>;
  /** Rejects when intake cannot go on (a webhook blocks polling, the token was revoked). */
  done?: Promise<void>;
  /** Webhook mode without a listener of its own: the receiver to mount on the embedding app. */
  plugin?: FastifyPluginCallback;
}

/** Flows loaded from a folder. */
export interface LoadedFlows {
  flows: FlowDefinition[];
  /** Errors as `file:line:col: error: message`; empty when the flows can run. */
  problems: string[];
}

/** What every intake needs. */
export interface IntakeOptions {
  api: BotApi;
  /** The SQLite database (absent on PostgreSQL: intake commits through `commit` or `store`). */
  db?: Database.Database;
  /** How updates are grouped into conversations (the `conversationKey` setting). */
  conversationKey: ConversationKeyStrategy;
  /** The engine's wake-up call after each commit, with the new inbox ids (`botflow run --record` records them). */
  onAccepted: (batch?: { ids: number[]; payloads: string[] }) => void;
  logger: Logger;
}

/** Constructors of every part; each adapts its own module. */
export interface AppParts {
  startSandbox(options: {
    host: string;
    port: number;
    logger: Logger;
    dbPath?: string;
    /** The flows folder (the playground saves transcript tests under `<dir>/tests`). */
    flowsDir?: string;
    /** Host these bots, each its own token (`SandboxHandle.tokenOf`); the first is the default bot. */
    bots?: readonly string[];
  }): Promise<SandboxHandle>;
  /** `logger` hears about slow validators, guards and effects. */
  loadFlows(dir: string, logger?: Logger): Promise<LoadedFlows>;
  watchFlows?(dir: string, onChange: (loaded: LoadedFlows) => void, logger?: Logger): { close(): void };
  createEngine(options: {
    /** The database, through its adapter (runtime/app-store.ts opens it from the configuration). */
    store: EngineStore;
    api: BotApi;
    scheduler: Scheduler;
    flows: FlowDefinition[];
    secret?: string;
    logger: Logger;
    /** The bot's username, from the self-check (commands addressed to other bots are not ours). */
    botUsername?: string;
    /** Tasks running at once (`tasks.concurrency`). */
    taskConcurrency?: number;
    /** Hears the process's role when it changes (the dispatcher also polls, in polling mode). */
    onRole?(role: Role): void;
    /** How event addresses become conversation keys (the `conversationKey` setting). */
    conversationKey?: ConversationKeyStrategy;
    /** Keep unrecognised texts as samples for the funnel (`funnel.samples`, default true). */
    funnelSamples?: boolean;
  }): Engine<boolean>;
  startPolling(
    options: Omit<IntakeOptions, 'api'> & {
      /** The long poll goes through the scheduler, so it counts in the same 30/s window as the sends. */
      api: Pick<BotApi, 'getUpdates' | 'getSubscriptions'>;
      timeoutSeconds: number;
      limit: number;
      types?: string[];
      /** Commits batches and the marker elsewhere than `db` (PostgreSQL). */
      store?: PollingStore;
    },
  ): Promise<IntakeHandle>;
  startWebhook(
    options: Omit<IntakeOptions, 'api'> & {
      /** The subscription check goes through the scheduler, like every other call. */
      api: Pick<BotApi, 'getSubscriptions' | 'subscribe' | 'unsubscribe'>;
      /** Commits accepted updates on the writer thread (absent: on `db`). */
      commit?: InboxCommit;
      host: string;
      port: number;
      path: string;
      url: string;
      secret: string;
      types?: string[];
      /** Open no port: return the receiver as a plugin (`IntakeHandle.plugin`) for the embedding app. */
      mount?: boolean;
      /** More routes on the receiver's own app (health checks). */
      routes?: FastifyPluginCallback;
    },
  ): Promise<IntakeHandle>;
}

/** Where the running parts can be reached. */
export interface AppAddresses {
  /** The Bot API in use (the sandbox's in the embedded default). */
  api: string;
  /** The sandbox, in the embedded default. */
  sandbox?: string;
  /** The page to open to chat with the flows, in the embedded default. */
  webChat?: string;
  /** Where the webhook receiver listens, in webhook mode. */
  webhook?: string;
  /** Where `GET /healthz` and `GET /readyz` answer (`health.port`). */
  health?: string;
  /** Where `POST /events` answers, when `events` is configured. */
  events?: string;
}

/** A started bot. */
export interface RunningApp {
  addresses: AppAddresses;
  bot: BotIdentity;
  /** Flows loaded at start. */
  flowCount: number;
  /** The embedded sandbox's dev token when it may be shown (SandboxHandle.shownToken): for the start line. */
  sandboxToken?: string;
  /** The engine, for tools and tests. */
  engine?: Engine<boolean>;
  /** External events into the inbox (`bot.events`, `POST /events`): the engine's, recorded by `--record`. */
  events: EngineEventSender;
  /** Resolves with the reason when a part fails for good (polling refused, …): the process should stop. */
  failed: Promise<Error>;
  /** Webhook mode with `mountWebhook`: the receiver, to register on the embedding fastify app. */
  webhook?: FastifyPluginCallback;
  /** Webhook mode with `mountWebhook` and `events` configured: the events endpoint, to register beside it. */
  eventsEndpoint?: FastifyPluginCallback;
  /** Stops everything (idempotent); `clean` is false when a step ran out of time. */
  close(reason?: string): Promise<{ clean: boolean; steps: StepOutcome[] }>;
}

/** What `startApp` needs besides the configuration. */
export interface StartAppOptions {
  /** With `addSecret`, the embedded sandbox's token is scrubbed from log lines too. */
  logger: Logger & { addSecret?(value: string): void };
  parts: AppParts;
  /** `botflow run --record <file>`: records every accepted update and every API result (src/testing/recorder.ts). */
  recorder?: Recorder;
  /** Webhook mode: open no port; `RunningApp.webhook` is the receiver to mount on an app of yours. */
  mountWebhook?: boolean;
  /**
   * On PostgreSQL, the process's one pool and LISTEN connection (`openSharedPostgres`) the bot's database
   * uses in its schema, instead of a pool of its own: a deployment opens one for all its bots. Its owner closes it.
   */
  postgres?: SharedPostgres;
}
