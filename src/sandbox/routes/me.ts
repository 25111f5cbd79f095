/** GET /me and PATCH /me/commands. */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { bodyOf, decodeBody } from '../http.ts';
import type { Platform } from '../platform.ts';
import { botInfoView } from '../views.ts';

const CommandsBody = z.object({
  commands: z
    .array(
      z.object({
        name: z.string().min(1).max(64),
        description: z.string().min(1).max(128).optional(),
      }),
    )
    .max(32),
});

export function registerMeRoutes(app: FastifyInstance, p: Platform): void {
  app.get('/me', { config: { op: 'getMyInfo' } }, async () => botInfoView(p.data));

  app.patch('/me/commands', { config: { op: 'editMyCommands' } }, async (req) => {
    const { commands } = decodeBody(CommandsBody, bodyOf(req), 'body');
    p.data.commands = commands.map((c) =>
      c.description ? { name: c.name, description: c.description } : { name: c.name },
    );
    return { commands: p.data.commands };
  });
}
