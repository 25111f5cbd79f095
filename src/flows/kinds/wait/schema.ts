/** The `wait` step's fields: it says its text, then waits for events, buttons and commands. */
import { z } from 'zod';
import { OnEvent } from '../../schema-events.ts';
import { common, Keyboard, Understand } from '../fields.ts';

export const WaitStep = z
  .strictObject({
    type: z.literal('wait'),
    ...common,
    keyboard: Keyboard.optional(),
    on_event: OnEvent,
    understand: Understand.optional(),
  })
  .describe(
    'Says its text, then waits for external events (on_event), buttons and commands; idle: {after, goto} is its timeout',
  );
export type WaitStep = z.infer<typeof WaitStep>;
