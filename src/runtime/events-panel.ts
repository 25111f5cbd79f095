/**
 * The playground's "Send event" (issue 29), server side: `POST /_inspector/send-event` takes
 * `{ user_id | key, name, payload?, key? }` and sends the event to that conversation through the running
 * bot's `EventSender`, as `POST /events` would. Local only, like every `/_inspector/` route (the sandbox
 * answers them to this machine alone). The sender is attached once the bot takes events.
 */
import type { FastifyPluginAsync } from 'fastify';
import { type EventAddress, EventInvalidError, type EventSender } from '../inbox/event-entry.ts';

/** The route and the sender it uses once attached. */
export class EventsPanel {
  #sender: EventSender | undefined;

  attach(sender: EventSender): void {
    this.#sender = sender;
  }

  readonly plugin: FastifyPluginAsync = async (app) => {
    app.post('/_inspector/send-event', async (req, reply) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const to: EventAddress | undefined =
        typeof body.conversation === 'string'
          ? { conversation: body.conversation }
          : Number.isSafeInteger(body.user_id)
            ? { userId: body.user_id as number }
            : undefined;
      if (!to)
        return reply.code(400).send({
          code: 'proto.payload',
          message: 'POST /_inspector/send-event takes { user_id or conversation, name, payload, key? }',
        });
      if (!this.#sender)
        return reply
          .code(409)
          .send({ code: 'no.engine', message: 'The bot does not take events yet: wait for it to start' });
      try {
        return await this.#sender.send({
          name: body.name as string,
          to,
          ...(body.payload !== undefined ? { payload: body.payload } : {}),
          ...(body.key !== undefined ? { key: body.key as string } : {}),
        });
      } catch (error) {
        if (!(error instanceof EventInvalidError)) throw error;
        return reply
          .code(422)
          .send({ code: error.botflowCode, message: error.problems.join('; '), problems: error.problems });
      }
    });
  };
}
