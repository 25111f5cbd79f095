/**
 * Tags a step sets on the person or takes off (`person.tags` effects), merged in the order the machine
 * emitted them: a tag added then removed in one step ends removed, and the other way round. Pure.
 */
import type { TagEffect } from './contract.ts';

/** The tags one step changes. */
export interface TagChange {
  add: string[];
  remove: string[];
}

/** What a tag may be: a short word (letters, digits, `_ - . :`), as segments name it. */
export const TAG_PATTERN = /^[\p{L}\p{N}_.:-]{1,64}$/u;

/** `change` with `effect` applied after it, or the reason the effect is refused. */
export function tagChange(change: TagChange | undefined, effect: TagEffect): TagChange | string {
  const add = new Set(change?.add);
  const remove = new Set(change?.remove);
  for (const [list, into, out] of [
    [effect.add, add, remove],
    [effect.remove, remove, add],
  ] as const) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) return 'add and remove must be lists of tags';
    for (const tag of list) {
      if (typeof tag !== 'string' || !TAG_PATTERN.test(tag))
        return `"${String(tag)}" is not a tag (1 to 64 letters, digits, _ - . :)`;
      into.add(tag);
      out.delete(tag);
    }
  }
  return { add: [...add], remove: [...remove] };
}
