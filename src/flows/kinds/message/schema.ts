/** The `message` step's fields: it says its text (and buttons), then moves on by `next` or waits for its task. */
import { z } from 'zod';
import { common, Keyboard, Next } from '../fields.ts';

export const MessageStep = z.strictObject({
  type: z.literal('message'),
  ...common,
  keyboard: Keyboard.optional(),
  next: Next,
});
export type MessageStep = z.infer<typeof MessageStep>;
