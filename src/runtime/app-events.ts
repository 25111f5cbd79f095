/**
 * The running bot's `EventSender`: each event becomes its inbox entry (`eventEntry`: the same rows as
 * `bot.events.send` and `botflow event send`) and is committed through intake's path (the writer thread,
 * PostgreSQL or this thread's SQLite connection, in group commits), after which the engine is woken like
 * for an update. The HTTP endpoint and the playground's "Send event" use it.
 *
 * TODO(lead): the engine side offers `engine.events` / `bot.events` (with payload schema checks from
 * flows/event-catalog.ts); when it is merged, pass that sender instead and remove this file.
 */
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { BotflowError } from '../errors/index.ts';
import { type EventReceipt, type EventSender, eventEntry, type OutsideEvent } from '../inbox/event-entry.ts';
import { type InboxCommit, InboxWriter, type OnAccepted } from '../inbox/inbox-writer.ts';
import type { ConversationKeyStrategy } from '../inbox/keys.ts';
import { InboxStore } from '../store/inbox.ts';

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
      // TODO(lead): check event.payload against the flows' declared schema (flows/event-catalog.ts).
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
