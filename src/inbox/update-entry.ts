/**
 * Turning one received update (its JSON text) into an inbox entry: the minimal open schema check and the
 * keys. Shared by the webhook receiver and long polling so that both store the same rows.
 */
import { createHash } from 'node:crypto';
import { BotflowError } from '../errors/index.ts';
import type { InboxEntry } from '../store/inbox.ts';
import { badIntegers, type ConversationKeyStrategy, conversationKey, dedupeKey } from './keys.ts';

/** Deeper JSON is refused before it is parsed: updates nest about eight levels; recursion must stay bounded. */
export const MAX_UPDATE_DEPTH = 64;

/** The received text is not an update: not JSON, not an object, or without a string `update_type`. */
export class InvalidUpdateError extends BotflowError {
  override name = 'InvalidUpdateError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_UPDATE_INVALID', message, options);
  }
}

/**
 * Checks the minimal schema (a JSON object with a non-empty string `update_type`; unknown types and fields
 * are accepted) and builds the inbox entry. `parsed` is `JSON.parse(payload)`, when the caller has it.
 */
export function updateEntry(
  payload: string,
  strategy: ConversationKeyStrategy = 'user-in-chat',
  parsed: unknown = parseJson(payload),
): InboxEntry {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InvalidUpdateError('an update must be a JSON object');
  }
  const updateType = (parsed as { update_type?: unknown }).update_type;
  if (typeof updateType !== 'string' || updateType === '') {
    throw new InvalidUpdateError('field update_type: required, a non-empty string');
  }
  if (badIntegers(parsed).length > 0) {
    // Kept, so that the engine records why it is ignored; keyed by its exact text, since rounded ids
    // would make two different updates look the same.
    const digest = createHash('sha256').update(payload).digest('base64url');
    return { kind: 'update', dedupeKey: `h:${digest}`, conversationKey: null, updateType, payload };
  }
  return {
    kind: 'update',
    dedupeKey: dedupeKey(parsed),
    conversationKey: conversationKey(parsed, strategy) ?? null,
    updateType,
    payload,
  };
}

/** How deep objects and arrays nest in a JSON text, counted in one pass without parsing. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

function parseJson(text: string): unknown {
  const depth = jsonDepth(text);
  if (depth > MAX_UPDATE_DEPTH) {
    throw new InvalidUpdateError(`nested ${depth} levels deep: updates nest at most ${MAX_UPDATE_DEPTH}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidUpdateError(`malformed JSON: ${(error as Error).message}`);
  }
}
