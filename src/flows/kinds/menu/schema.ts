/** The `menu` step's fields: buttons (or their labels typed), intents, and what other text does. */
import { z } from 'zod';
import { OnEvent } from '../../schema-events.ts';
import { Route } from '../../schema-parts.ts';
import { common, Keyboard, Understand } from '../fields.ts';

export const MenuStep = z.strictObject({
  type: z.literal('menu'),
  ...common,
  keyboard: Keyboard,
  on_text: Route.optional().describe('What typed text does while the menu is shown'),
  understand: Understand.optional(),
  on_event: OnEvent.optional(),
});
export type MenuStep = z.infer<typeof MenuStep>;
