/**
 * The parts `startApp` composes, described by what the composition needs of each (their own modules own
 * the full interfaces). `defaultParts()` (default-parts.ts) returns the real ones.
 */
import type Database from 'better-sqlite3';
import type { FastifyPluginCallback } from 'fastify';
import type { Logger } from 'pino';
import type { BotApi } from '../client/client.ts';
import type { Scheduler } from '../dispatch/scheduler/scheduler.ts';
import type { WriterThread } from '../engine/commit/writer-thread.ts';
import type { Engine } from '../engine/engine.ts';
import type { FlowDefinition } from '../engine/step/contract.ts';
import type { InboxCommit } from '../inbox/inbox-writer.ts';
import type { ConversationKeyStrategy } from '../inbox/keys.ts';

/** A running sandbox (embedded default). */
export interface SandboxHandle {
  baseUrl: string;
  token: string;
  /** The web chat page, when the sandbox serves one. */
  webChatUrl?: string;
  /** Lets the web chat's side panel show the engine, once it runs. */
  attachEngine?(engine: Engine, loaded: LoadedFlows): void;
  /** Tells the side panel that flows were reloaded (or failed to). */
  flowsChanged?(loaded: LoadedFlows): void;
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
  db: Database.Database;
  /** How updates are grouped into conversations (the `conversationKey` setting). */
  conversationKey: ConversationKeyStrategy;
  /** The engine's wake-up call after each commit, with the new inbox ids (`botflow run --record` records them). */
  onAccepted: (batch?: { ids: number[] }) => void;
  logger: Logger;
}

/** Constructors of every part; each adapts its own module. */
export interface AppParts {
  startSandbox(options: {
    host: string;
    port: number;
    logger: Logger;
    dbPath?: string;
  }): Promise<SandboxHandle>;
  /** `logger` hears about slow validators, guards and effects. */
  loadFlows(dir: string, logger?: Logger): Promise<LoadedFlows>;
  watchFlows?(dir: string, onChange: (loaded: LoadedFlows) => void, logger?: Logger): { close(): void };
  createEngine(options: {
    db: Database.Database;
    /** Commits the engine's batches on a second thread (absent: on `db`). */
    writer?: WriterThread;
    api: BotApi;
    scheduler: Scheduler;
    flows: FlowDefinition[];
    secret?: string;
    logger: Logger;
    /** The bot's username, from the self-check (commands addressed to other bots are not ours). */
    botUsername?: string;
    /** Tasks running at once (`tasks.concurrency`). */
    taskConcurrency?: number;
  }): Engine;
  startPolling(
    options: Omit<IntakeOptions, 'api'> & {
      /** The long poll goes through the scheduler, so it counts in the same 30/s window as the sends. */
      api: Pick<BotApi, 'getUpdates' | 'getSubscriptions'>;
      timeoutSeconds: number;
      limit: number;
      types?: string[];
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
    },
  ): Promise<IntakeHandle>;
}
