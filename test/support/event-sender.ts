/**
 * An `EventSender` straight over intake's commit path (`eventEntry` + the inbox writer), without an engine:
 * the endpoint's and the CLI's tests drive real inboxes with it. The running bot uses `engine.events`.
 */
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { BotflowError } from '../../src/errors/index.ts';
import {
  type EventReceipt,
  type EventSender,
  eventEntry,
  type OutsideEvent,
} from '../../src/inbox/event-entry.ts';
import { type InboxCommit, InboxWriter, type OnAccepted } from '../../src/inbox/inbox-writer.ts';
import type { ConversationKeyStrategy } from '../../src/inbox/keys.ts';
import { InboxStore } from '../../src/store/inbox.ts';

/** Options of `appEventSender`: where intake commits, and who hears of new rows. */
export interface AppEventSenderOptions {
  /** The SQLite connection (when `commit` is absent, entries are appended on it). */
  db?: Database.Database;
  /** Commits elsewhere: the writer thread or PostgreSQL. */
  commit?: InboxCommit;
  conversationKey: ConversationKeyStrategy;
  /** Wakes the engine after each commit that added rows. */
  onAccepted?: OnAccepted;
  logger?: Logger;
  /** The time, in ms (default `Date.now`). */
  now?: () => number;
}

/** An `EventSender` that can be stopped with the rest of intake. */
export interface AppEventSender extends EventSender {
  /** Refuses further events and commits those already accepted. */
  stop(): Promise<void>;
}

/** The sender of a running app (see the file's comment). */
export function appEventSender(options: AppEventSenderOptions): AppEventSender {
  if (!options.db && !options.commit)
    throw new BotflowError(
      'BOTFLOW_OPTIONS_INVALID',
      'appEventSender needs a database (db) or a commit function',
    );
  const writer = new InboxWriter({
    ...(options.db && !options.commit ? { inbox: new InboxStore(options.db) } : {}),
    ...(options.commit ? { commit: options.commit } : {}),
    ...(options.onAccepted ? { onAccepted: options.onAccepted } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const now = options.now ?? Date.now;
  let stopped = false;
  return {
    async send(event: OutsideEvent): Promise<EventReceipt> {
      const entry = eventEntry(event, options.conversationKey, now());
      if (stopped)
        throw new BotflowError(
          'BOTFLOW_EVENTS_UNAVAILABLE',
          'the bot is stopping: send the event again later',
        );
      const result = await writer.submit(entry);
      return { accepted: result.inserted, id: result.id, conversation: entry.conversationKey as string };
    },
    async stop() {
      stopped = true;
      await writer.flush();
    },
  };
}
