/**
 * Tags in flow files: `tag: vip` / `tag: [a, b]` / `untag: x` on a step (when it is entered) or as an entry
 * of `do:` (on a step, a button, a command…). A tag outlives the session; campaigns select people by their
 * tags (docs/campaigns.md). They become `person.tags` effects, written with the step.
 */
import { z } from 'zod';
import type { TagEffect } from '../engine/step/contract.ts';
import { TAG_PATTERN } from '../engine/step/tags.ts';

const TagName = z
  .string()
  .regex(TAG_PATTERN, 'a tag is 1 to 64 letters, digits, _ - . or :')
  .describe('A tag: a short word such as vip or signed_up');
/** One tag or a list of them. */
export const TagList = z.union([TagName, z.array(TagName).min(1)]);

/** A `do:` entry that tags the person or takes a tag off. */
export const TagCall = z.union([
  z.strictObject({ tag: TagList.describe('Tags set on the person; they outlive the session') }),
  z.strictObject({ untag: TagList.describe('Tags taken off the person') }),
]);
export type TagCall = z.infer<typeof TagCall>;

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : [v].flat());

/** The effect of a step's own `tag:` / `untag:` keys, or of a `do:` entry; undefined when it tags nothing. */
export function tagEffect(source: {
  tag?: string | string[];
  untag?: string | string[];
}): TagEffect | undefined {
  const add = list(source.tag);
  const remove = list(source.untag);
  if (add.length + remove.length === 0) return undefined;
  return { kind: 'person.tags', ...(add.length ? { add } : {}), ...(remove.length ? { remove } : {}) };
}

/** True for a `do:` entry that is a tag call. */
export const isTagCall = (d: object): d is TagCall => 'tag' in d || 'untag' in d;
