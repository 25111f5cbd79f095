/**
 * Turning one received update (its JSON text) into an inbox entry: the minimal open schema check and the
 * keys. Shared by the webhook receiver and long polling so that both store the same rows.
 */
import type { InboxEntry } from '../store/inbox.ts';
import { type ConversationKeyStrategy, conversationKey, dedupeKey } from './keys.ts';

/** The received text is not an update: not JSON, not an object, or without a string `update_type`. */
export class InvalidUpdateError extends Error {
  override name = 'InvalidUpdateError';
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
  return {
    kind: 'update',
    dedupeKey: dedupeKey(parsed),
    conversationKey: conversationKey(parsed, strategy) ?? null,
    updateType,
    payload,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidUpdateError(`malformed JSON: ${(error as Error).message}`);
  }
}
