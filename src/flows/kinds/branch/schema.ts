/** The `branch` step's fields: conditions tried in order, and `else`. */
import { z } from 'zod';
import { Condition, Id } from '../../schema-parts.ts';
import { OnError, RouteSet } from '../fields.ts';

export const BranchStep = z.strictObject({
  type: z.literal('branch'),
  cases: z.array(z.strictObject({ when: Condition, goto: Id, set: RouteSet.optional() })).min(1),
  else: Id,
  on_error: OnError.optional(),
});
export type BranchStep = z.infer<typeof BranchStep>;
