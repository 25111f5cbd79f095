/**
 * Routes registered once on the fastify app and answered by the bot a request is for. The route modules
 * register handlers that close over one bot's platform (`registerMeRoutes(app, platform)`); here they
 * register into a recorder instead, once per bot (on the bot's first request), and the real route runs
 * the handler recorded for the request's bot. So the route modules stay single-bot, and bots added to a
 * running sandbox need no new routes (fastify takes none after it started).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { SandboxBot } from './bots.ts';

type Handler = (this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) => unknown;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete'];

interface Recorded {
  method: Method;
  url: string;
  options: RouteShorthandOptions;
  handler: Handler;
}

/** A stand-in for the app that only records `app.get(url, [options], handler)` and its siblings. */
function record(register: (app: FastifyInstance) => void): Recorded[] {
  const routes: Recorded[] = [];
  const recorder = Object.fromEntries(
    METHODS.map((method) => [
      method,
      (url: string, a: RouteShorthandOptions | Handler, b?: Handler) => {
        routes.push(
          typeof a === 'function'
            ? { method, url, options: {}, handler: a }
            : { method, url, options: a, handler: b! },
        );
      },
    ]),
  );
  register(recorder as unknown as FastifyInstance);
  return routes;
}

/**
 * Registers on `app` the routes `register` makes for one bot; each request runs the handler made for the
 * bot `pick` names (handlers made once per bot, on its first request).
 */
export function perBotRoutes(
  app: FastifyInstance,
  first: SandboxBot,
  register: (app: FastifyInstance, bot: SandboxBot) => void,
  pick: (req: FastifyRequest) => SandboxBot,
): void {
  const tables = new WeakMap<SandboxBot, Map<string, Handler>>();
  const tableOf = (bot: SandboxBot) => {
    let table = tables.get(bot);
    if (!table) {
      table = new Map(record((r) => register(r, bot)).map((r) => [`${r.method} ${r.url}`, r.handler]));
      tables.set(bot, table);
    }
    return table;
  };
  for (const route of record((r) => register(r, first))) {
    const key = `${route.method} ${route.url}`;
    app[route.method](route.url, route.options, function (req, reply) {
      return tableOf(pick(req)).get(key)!.call(this, req, reply);
    });
  }
}
