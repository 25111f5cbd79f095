/** GET, POST, DELETE /subscriptions: webhook subscriptions. */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { UPDATE_TYPES } from '../../client/schemas/index.ts';
import { badRequest } from '../errors.ts';
import { argsOf, bodyOf, decodeBody, strArg } from '../http.ts';
import type { Platform } from '../platform.ts';

const SubscribeBody = z.object({
  url: z.string().min(1),
  secret: z
    .string()
    .regex(/^[A-Za-z0-9_-]{5,256}$/, 'must be 5..256 characters of A-Z, a-z, 0-9, _ and -')
    .nullish(),
  update_types: z.array(z.string()).nullish(),
  version: z.string().nullish(),
});

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

function checkUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest(`Field "url": not a URL: ${raw}`);
  }
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return; // sandbox-only relaxation
  throw badRequest(
    'Field "url": the platform delivers webhooks to public HTTPS URLs only (the sandbox also allows http://127.0.0.1)',
  );
}

export function registerSubscriptionRoutes(app: FastifyInstance, p: Platform): void {
  app.get('/subscriptions', { config: { op: 'getSubscriptions' } }, async () => ({
    subscriptions: p.data.subscriptions.map((s) => ({
      url: s.url,
      time: s.time,
      ...(s.update_types ? { update_types: s.update_types } : {}),
      ...(s.version ? { version: s.version } : {}),
    })),
  }));

  app.post('/subscriptions', { config: { op: 'subscribe' } }, async (req) => {
    const body = decodeBody(SubscribeBody, bodyOf(req), 'body');
    checkUrl(body.url);
    const unknown = (body.update_types ?? []).filter((t) => !(UPDATE_TYPES as string[]).includes(t));
    if (unknown.length) throw badRequest(`Field "update_types": unknown types ${unknown.join(', ')}`);
    const subs = p.data.subscriptions.filter((s) => s.url !== body.url);
    subs.push({
      url: body.url,
      time: p.now(),
      ...(body.secret ? { secret: body.secret } : {}),
      ...(body.update_types?.length ? { update_types: body.update_types } : {}),
      ...(body.version ? { version: body.version } : {}),
    });
    p.data.subscriptions = subs;
    return { success: true };
  });

  app.delete('/subscriptions', { config: { op: 'unsubscribe' } }, async (req) => {
    const url = strArg(argsOf(req), 'url', true);
    const before = p.data.subscriptions.length;
    p.data.subscriptions = p.data.subscriptions.filter((s) => s.url !== url);
    p.hub.webhooks.remove(url);
    return before === p.data.subscriptions.length
      ? { success: false, message: `No subscription for ${url}` }
      : { success: true };
  });
}
