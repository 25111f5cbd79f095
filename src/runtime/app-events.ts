/**
 * The events endpoint of a running bot, as its configuration (`events.*`) asks for it: the routes over the
 * engine's sender (`running.events`: names and payload schemas checked, accepted rows recorded), served on
 * the webhook receiver's port, or on a port of its own in polling mode and with the sandbox.
 */
import Fastify, { type FastifyPluginCallback, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { EventSender } from '../inbox/event-entry.ts';
import { eventsEndpoint } from '../intake/events-endpoint.ts';
import type { Config } from './config.ts';
import { describeListenError, StartupError } from './startup-error.ts';

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
