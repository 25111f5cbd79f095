/**
 * The deployment's one HTTP server: every webhook bot's route `<path of webhook.url>/webhook/<alias>`, led
 * to that bot's receiver (which checks the bot's secret in constant time and commits to the bot's inbox),
 * and `/healthz`, `/readyz` (`?bot=name`) for the deployment. An unknown alias is a bare 404; a known bot
 * that does not run (starting, paused, failed) answers 503 after its secret is checked, so the platform
 * delivers again later. The token is never part of a route.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { SECRET_HEADERS } from '../intake/webhook.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import type { BotSlot } from './deployment-bot.ts';
import { describeListenError } from './startup-error.ts';

/** What the server asks the deployment. */
export interface DeploymentRoutes {
  /** The path of `webhook.url` (`/` without one): the routes are `<path>/webhook/<alias>`. */
  path: string;
  byAlias(alias: string): BotSlot | undefined;
  byName(name: string): BotSlot | undefined;
  all(): BotSlot[];
  shown(slot: BotSlot): unknown;
  /** Starts a cold (`idle`) bot; resolves once it runs, or is down for another reason. */
  warm(slot: BotSlot): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function secretMatches(slot: BotSlot, req: IncomingMessage): boolean {
  const given = req.headers[SECRET_HEADERS[0]] ?? req.headers[SECRET_HEADERS[1]];
  if (!slot.secretDigest || typeof given !== 'string') return false;
  return timingSafeEqual(slot.secretDigest, createHash('sha256').update(given).digest());
}

/** A running bot, or a cold one (idle with its subscription in place, or warming up or cooling down: a delivery waits for it). */
function serving(slot: BotSlot): boolean {
  if (slot.status === 'running') return true;
  if (slot.status === 'idle') return slot.subscribed !== false;
  return slot.coldable === true && (slot.status === 'starting' || slot.status === 'stopping');
}

/** Ready: every bot that is meant to run (not paused, not failed) runs. */
function health(routes: DeploymentRoutes, res: ServerResponse, url: URL): void {
  const bots = routes.all();
  if (url.pathname === '/healthz') {
    send(res, 200, { status: 'ok', bots: bots.map(routes.shown) });
    return;
  }
  const name = url.searchParams.get('bot');
  if (name !== null) {
    const slot = routes.byName(name);
    if (!slot) {
      send(res, 404, { status: 'unknown bot' });
      return;
    }
    const ok = serving(slot);
    send(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready', bot: routes.shown(slot) });
    return;
  }
  const waiting = bots.filter(
    (slot) => !serving(slot) && slot.status !== 'paused' && slot.status !== 'failed',
  );
  send(res, waiting.length === 0 ? 200 : 503, {
    status: waiting.length === 0 ? 'ready' : 'not ready',
    bots: bots.map(routes.shown),
  });
}

/** The request handler: health, or the route of one bot's alias. */
export function deploymentHandler(routes: DeploymentRoutes) {
  const prefix = `${routes.path.replace(/\/+$/, '')}/webhook/`;
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://deployment');
    if (req.method === 'GET' && (url.pathname === '/healthz' || url.pathname === '/readyz')) {
      health(routes, res, url);
      return;
    }
    const alias = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : '';
    const slot = /^[A-Za-z0-9_-]+$/.test(alias) ? routes.byAlias(alias) : undefined;
    if (!slot) {
      send(res, 404, { code: 'not.found', message: 'not found' });
      return;
    }
    if (slot.receiver) {
      deliver(slot, req, res, url);
      return;
    }
    // A cold bot's secret is checked before it is warmed: a wrong secret never opens its file.
    if (!secretMatches(slot, req)) {
      send(res, 401, { code: 'verify.secret', message: 'wrong webhook secret' });
      return;
    }
    const unavailable = () =>
      send(res, 503, { code: 'bot.unavailable', message: 'the bot is not running; deliver it again later' });
    const warmable =
      slot.status === 'idle' || slot.status === 'starting' || (slot.coldable && slot.status === 'stopping');
    if (!warmable) {
      unavailable();
      return;
    }
    routes.warm(slot).then(() => (slot.receiver ? deliver(slot, req, res, url) : unavailable()), unavailable);
  };
}

/** The bot's receiver serves `POST /` (its plugin, mounted): it checks the secret and commits. */
function deliver(slot: BotSlot, req: IncomingMessage, res: ServerResponse, url: URL): void {
  slot.lastActive = wallNow();
  req.url = `/${url.search}`;
  slot.receiver!.routing(req, res);
}

/** Listens on `host:port`; resolves with the address and `close`. Throws `StartupError` for a port in use. */
export async function startDeploymentServer(
  routes: DeploymentRoutes,
  host: string,
  port: number,
): Promise<{ address: string; port: number; close(): Promise<void> }> {
  const server = createServer(deploymentHandler(routes));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (error) {
    throw (
      describeListenError(
        error,
        `the deployment's server cannot listen on ${host}:${port}`,
        'webhook.port or BOTFLOW_WEBHOOK_PORT',
      ) ?? error
    );
  }
  const bound = server.address();
  const actual = typeof bound === 'object' && bound ? bound.port : port;
  return {
    address: `http://${host}:${actual}`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
