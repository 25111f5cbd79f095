/**
 * The bots the sandbox hosts, through the control API: `GET /_sandbox/bots` lists them (never with a
 * token), `POST /_sandbox/bots` adds one, `DELETE /_sandbox/bots/:bot_id` removes one. Every other control
 * route acts toward the bot named by `bot_id` (query or body), the default bot when absent.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { identityOf, type SandboxBot, type SandboxBots } from '../bots.ts';
import { badRequest, notFound } from '../errors.ts';
import { bodyOf, decodeBody, intArg } from '../http.ts';

const NewBotBody = z.object({
  name: z.string(),
  username: z.string().optional(),
});

/** The bot a control request is for: `bot_id` in the query or the JSON body, else the default bot. */
export function botOfControl(bots: SandboxBots, req: FastifyRequest): SandboxBot {
  const query = req.query as Record<string, unknown> | undefined;
  const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  const raw = query?.bot_id ?? body.bot_id;
  if (raw === undefined || raw === null || raw === '') return bots.default;
  const id = Number(raw);
  if (!Number.isInteger(id))
    throw badRequest('Parameter "bot_id": a bot id (a number) from GET /_sandbox/bots');
  const bot = bots.byId(id);
  if (!bot) throw notFound(`Bot ${id} not found: GET /_sandbox/bots lists the bots`);
  return bot;
}

export function registerBotRoutes(app: FastifyInstance, bots: SandboxBots, showToken: boolean): void {
  app.get('/_sandbox/bots', async () => ({ bots: bots.list() }));

  app.post('/_sandbox/bots', async (req) => {
    // A token is never taken here: the sandbox makes one, and shows it only where `info` would.
    const input = decodeBody(NewBotBody, bodyOf(req), 'body');
    const bot = bots.add(
      { name: input.name, ...(input.username ? { username: input.username } : {}) },
      bots.default.platform.now(),
    );
    return { ...identityOf(bot), ...(showToken && bot.tokenMade ? { token: bot.token } : {}) };
  });

  app.delete('/_sandbox/bots/:bot_id', async (req) => {
    bots.remove(intArg(req.params as Record<string, unknown>, 'bot_id', true));
    return { success: true };
  });
}
