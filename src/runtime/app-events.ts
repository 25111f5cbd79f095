/**
 * The running bot's `EventSender`: each event becomes its inbox entry (`eventEntry`: the same rows as
 * `bot.events.send` and `botflow event send`) and is committed through intake's path (the writer thread,
 * PostgreSQL or this thread's SQLite connection, in group commits), after which the engine is woken like
 * for an update. The HTTP endpoint and the playground's "Send event" use it.
 *
 * TODO(lead): with the events engine merged, app.ts passes `running.events` (names and payload schemas
 * checked, `accepted` recorded) instead of `appEventSender(...)`, and drops the 'stop taking events' step;
 * `appEventSender` can stay for tests of the endpoint (or go, with them using engine.events).
 */
import type Database from 'better-sqlite3';
import Fastify, { type FastifyPluginCallback, LogController } from 'fastify';
import type { Logger } from 'pino';
import { BotflowError } from '../errors/index.ts';
import { type EventReceipt, type EventSender, eventEntry, type OutsideEvent } from '../inbox/event-entry.ts';
import { type InboxCommit, InboxWriter, type OnAccepted } from '../inbox/inbox-writer.ts';
import type { ConversationKeyStrategy } from '../inbox/keys.ts';
import { eventsEndpoint } from '../intake/events-endpoint.ts';
import { InboxStore } from '../store/inbox.ts';
import type { Config } from './config.ts';
import { describeListenError, StartupError } from './startup-error.ts';

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

/** The endpoint the configuration asks for (`events.*`), or undefined when `events` is not configured. */
export function configuredEndpoint(
  config: Config,
  sender: EventSender,
  /** The bot token (the sandbox's in the embedded default): mini-apps' initData is signed with it. */
  token: string | undefined,
  logger: Logger,
): FastifyPluginCallback | undefined {
  const { events } = config;
  if (!events.enabled) return undefined;
  if (events.miniApp.length > 0 && !token)
    throw new StartupError('events.miniApp needs the bot token: initData is signed with it', 2);
  return eventsEndpoint({
    sender,
    keys: events.keys.map((key) => key.reveal()),
    path: events.path,
    maxBody: events.maxBody,
    ...(events.miniApp.length > 0 && token
      ? {
          miniApp: {
            token,
            events: events.miniApp,
            maxAgeSeconds: events.miniAppMaxAgeSeconds,
            origins: events.miniAppOrigins,
          },
        }
      : {}),
    logger,
  });
}

/** A listener of its own for the endpoint (no webhook receiver to serve it): `events.host:events.port`. */
export async function startEventsServer(
  config: Config,
  endpoint: FastifyPluginCallback,
): Promise<{ address: string; close(): Promise<void> }> {
  const app = Fastify({ logController: new LogController({ disableRequestLogging: true }) });
  app.register(endpoint);
  const { host, port, path } = config.events;
  await app.listen({ host, port }).catch(async (error: unknown) => {
    await app.close();
    const where = `the events endpoint cannot listen on ${host}:${port}`;
    throw describeListenError(error, where, 'events.port or BOTFLOW_EVENTS_PORT') ?? error;
  });
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return { address: `http://${host}:${bound}${path}`, close: () => app.close() };
}
