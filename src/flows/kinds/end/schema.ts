/** The `end` step's fields: the last words, and what a called flow gives back. */
import { z } from 'zod';
import { Text } from '../../schema-parts.ts';
import { common, Media } from '../fields.ts';

export const EndStep = z.strictObject({
  type: z.literal('end'),
  return: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('In a called flow: the variable (or list of variables, as an object) given back to the caller'),
  say: Text.optional(),
  media: Media.optional(),
  do: common.do,
  tag: common.tag,
  untag: common.untag,
});
export type EndStep = z.infer<typeof EndStep>;
