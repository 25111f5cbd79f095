/** GET /updates: long polling, refused with 405 while a webhook subscription is active. */
import type { FastifyInstance } from 'fastify';
import { badRequest, methodNotAllowed } from '../errors.ts';
import { argsOf, intArg, listArg } from '../http.ts';
import type { Platform } from '../platform.ts';

export function registerUpdateRoutes(app: FastifyInstance, p: Platform): void {
  app.get('/updates', { config: { op: 'getUpdates' } }, async (req) => {
    if (p.data.subscriptions.length > 0) {
      throw methodNotAllowed(
        'Long polling is not available while a webhook subscription is active: DELETE /subscriptions first',
      );
    }
    const args = argsOf(req);
    const limit = intArg(args, 'limit') ?? 100;
    if (limit < 1 || limit > 1000) throw badRequest('Parameter "limit" must be 1..1000');
    const timeout = intArg(args, 'timeout') ?? 30;
    if (timeout < 0 || timeout > 90) throw badRequest('Parameter "timeout" must be 0..90 seconds');
    const marker = intArg(args, 'marker');
    const types = listArg(args, 'types');
    const abort = new AbortController();
    req.raw.once('close', () => abort.abort());
    return p.hub.poll.poll({
      marker,
      limit,
      timeoutMs: timeout * 1000,
      types: types?.length ? new Set(types) : undefined,
      signal: abort.signal,
    });
  });
}
