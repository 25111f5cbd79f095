/** The flow file's parts for external events: names, `on_event` routes, `events:` declarations. */
import { z } from 'zod';
import { EVENT_NAME } from '../inbox/event-entry.ts';
import { Id, RouteShape } from './schema-parts.ts';

/** An external event's name, as `bot.events.send` and `POST /events` send it. */
export const EventName = z
  .string()
  .regex(EVENT_NAME, 'an event name: a letter, then letters, digits, "_", "." or "-" (at most 64)');
/** What an external event does on a step that waits for it: save its payload, say, set, do, go. */
export const EventRoute = z.strictObject({
  save_as: z.string().optional().describe("Variable that receives the event's payload"),
  ...RouteShape,
});
export type EventRoute = z.infer<typeof EventRoute>;
export const OnEvent = z
  .record(EventName, EventRoute)
  .describe('External events this step takes, by name: order_shipped: {save_as: shipment, goto: shipped}');

/** What the flow says of an external event: its payload's JSON Schema, and what it does elsewhere. */
export const EventDeclaration = z.strictObject({
  payload: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('JSON Schema of the payload: checked before the event is accepted'),
  while_elsewhere: z
    .union([z.enum(['queue', 'ignore', 'interrupt']), z.strictObject({ ...EventRoute.shape, goto: Id })], {
      error: 'while_elsewhere is queue, ignore, interrupt, or a route to a step of this flow: { goto: step }',
    })
    .optional()
    .describe(
      'When the person is on a step of this flow that does not take it: ignore (default), queue (until a step takes it), interrupt (this flow ends, the flow it triggers starts), or { save_as, say, goto: step } (this flow goes to that step)',
    ),
  description: z.string().optional(),
});
