/** The `call` step's fields: another flow runs, then this one continues at `next`. */
import { z } from 'zod';
import { Id, Vars } from '../../schema-parts.ts';
import { common } from '../fields.ts';

export const CallStep = z.strictObject({
  type: z.literal('call'),
  ...common,
  flow: Id.describe('The flow to run; when it ends, this flow continues at `next`'),
  with: Vars.optional().describe(
    'Parameters: variables set before the called flow starts ("{{var}}" copies one)',
  ),
  save_as: z.string().optional().describe('Variable that receives the value the called flow returns'),
  next: Id.describe('Where this flow continues after the called flow ends'),
});
export type CallStep = z.infer<typeof CallStep>;
