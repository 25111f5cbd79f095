/**
 * Identifiers shaped like the platform's: `mid.` + 32 hex digits for messages, seq numbers above
 * 2^53, ~110-character opaque callback ids, negative ids for group chats and channels.
 */
import { randomBytes } from 'node:crypto';

/** Counters that make ids unique; persisted with the state so ids never repeat after a restart. */
export interface IdCounters {
  user: number;
  chat: number;
  dialog: number;
  message: number;
  upload: number;
}

export const FIRST_USER_ID = 200_000_000;
export const FIRST_DIALOG_ID = 180_000_000;
export const FIRST_GROUP_ID = -70_000_000_000_000;
/** Real `seq` values are around 1.16e17; JSON numbers that large lose their last digits, as on the platform. */
const SEQ_BASE = 116_328_000_000_000_000;

export function newCounters(): IdCounters {
  return { user: 0, chat: 0, dialog: 0, message: 0, upload: 0 };
}

const hex16 = (n: number) => Math.abs(Math.trunc(n)).toString(16).padStart(16, '0').slice(-16);

/** A message id: `mid.` + 32 hex digits (chat part + counter part). */
export function messageId(chatId: number, counter: number): string {
  return `mid.${hex16(chatId)}${hex16(counter)}`;
}

/** A body.seq: strictly increasing, above 2^53 like the platform's. */
export function seqNumber(counter: number): number {
  return SEQ_BASE + counter * 4096;
}

/** An opaque callback id of 110 URL-safe characters. */
export function callbackId(): string {
  return randomBytes(83).toString('base64url').slice(0, 110);
}

/** An opaque token of `bytes` random bytes, URL-safe. */
export function opaqueToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** A bot token for a sandbox that was not given one. */
export function generateBotToken(): string {
  return `sandbox-token-${opaqueToken(18)}`;
}
