/**
 * The parts `startApp` composes, described by what the composition needs of each (their own modules own
 * the full interfaces). `loadParts()` returns the real ones; tests may replace a part they cannot run.
 */
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import type { BotApi } from '../api/client.ts';
import type { Scheduler } from '../api/scheduler/scheduler.ts';

/** A running sandbox (embedded default). */
export interface SandboxHandle {
  baseUrl: string;
  token: string;
  /** The web chat page, when the sandbox serves one. */
  webChatUrl?: string;
  close(): Promise<void>;
}

/** A running engine. */
export interface EngineHandle {
  start(): Promise<void> | void;
  /** Stops taking new work, finishes the steps under way; resolves when done or at `deadlineMs` (absolute). */
  stop(options: { deadlineMs: number }): Promise<void>;
  /** Replaces the flows new sessions start on (hot reload). */
  setFlows?(flows: unknown[]): void;
}

/** Something that delivers updates into the inbox and can be stopped. */
export interface IntakeHandle {
  /** Where it listens (webhook), for the start line. */
  address?: string;
  stop(): Promise<void>;
}

/** Flows loaded from a folder. */
export interface LoadedFlows {
  flows: unknown[];
  /** Problems as `file:line:col: message`. */
  problems: string[];
}

/** Constructors of every part; each takes what its own module takes. */
export interface AppParts {
  startSandbox(options: {
    host: string;
    port: number;
    logger: Logger;
    dbPath?: string;
  }): Promise<SandboxHandle>;
  loadFlows(dir: string, logger: Logger): Promise<LoadedFlows>;
  watchFlows?(dir: string, onChange: (loaded: LoadedFlows) => void, logger: Logger): { close(): void };
  createEngine(options: {
    db: Database.Database;
    api: BotApi;
    scheduler: Scheduler;
    flows: unknown[];
    keyStrategy: 'user-in-chat' | 'chat' | 'user';
    buttonSecret: string;
    logger: Logger;
  }): Promise<EngineHandle> | EngineHandle;
  startPolling(options: {
    api: BotApi;
    db: Database.Database;
    timeoutSeconds: number;
    limit: number;
    types?: string[];
    keyStrategy: 'user-in-chat' | 'chat' | 'user';
    onAccepted: () => void;
    logger: Logger;
  }): Promise<IntakeHandle>;
  startWebhook(options: {
    api: BotApi;
    db: Database.Database;
    host: string;
    port: number;
    path: string;
    url: string;
    secret: string;
    types?: string[];
    keyStrategy: 'user-in-chat' | 'chat' | 'user';
    onAccepted: () => void;
    logger: Logger;
  }): Promise<IntakeHandle>;
}
