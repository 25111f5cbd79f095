/**
 * An external event (an order shipped, a table confirmed, a mini-app's form submitted) as an inbox entry:
 * its address made into a conversation key by the same rules as updates (inbox/keys.ts), its idempotency
 * key into the de-duplication key. Pure; shared by `bot.events.send`, `POST /events` and
 * `botflow event send`, so that the three doors store the same rows.
 */
import { randomUUID } from 'node:crypto';
import { BotflowError } from '../errors/index.ts';
import type { InboxEntry } from '../store/inbox.ts';
import { systemClock } from '../store/ports/clock.ts';
import type { ConversationKeyStrategy } from './keys.ts';

/** The inbox kind of an external event; the engine turns it into a flow's `event`. */
export const EVENT_KIND = 'event';

/** An event name: a letter, then letters, digits, `_`, `.` or `-`; at most 64 characters. */
export const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** The largest payload an event may carry, as JSON text (bytes of UTF-8). */
export const MAX_EVENT_PAYLOAD_BYTES = 64 * 1024;

/** The largest idempotency key. */
export const MAX_EVENT_KEY_LENGTH = 200;

/**
 * Who an event is for: a person (their dialog with the bot), a chat (with a person in it, under the
 * `user-in-chat` strategy), or a conversation key as botflow writes it (`u:42`, `c:-7:u:42`).
 */
export type EventAddress =
  | { userId: number; chatId?: undefined; conversation?: undefined }
  | { chatId: number; userId?: number; conversation?: undefined }
  | { conversation: string; userId?: undefined; chatId?: undefined };

/** An event from outside, as the doors take it. */
export interface OutsideEvent {
  /** The event's name, as flows name it in `on_event:` and `triggers: - event:`. */
  name: string;
  to: EventAddress;
  /** Any JSON value (the flow's or registry's schema checks it); default `{}`. */
  payload?: unknown;
  /**
   * The idempotency key: a second event with the same name and key is ignored (a retried request, a
   * queue delivering twice). Without one, every send is a new event.
   */
  key?: string;
  /** When it happened, in ms; default: when it is accepted. */
  at?: number;
}

/** What the inbox row of an event holds as its payload (JSON). */
export interface StoredEvent {
  name: string;
  payload: unknown;
  key: string | null;
  /** Who it was for, as sent (the engine fills a new session's chat and person from it). */
  userId?: number;
  chatId?: number;
  at: number;
}

/** What a door answers for one accepted event. */
export interface EventReceipt {
  /** False when an event with the same name and key was accepted before (this one was ignored). */
  accepted: boolean;
  /** The inbox row's id (arrival order), or null for a duplicate. */
  id: number | null;
  /** The conversation the event was routed to. */
  conversation: string;
}

/** Sends events into the inbox: what `bot.events`, `engine.events` and the HTTP endpoint offer. */
export interface EventSender {
  /** Resolves once the event is durable; rejects with `EventInvalidError` (nothing stored) when it is not valid. */
  send(event: OutsideEvent): Promise<EventReceipt>;
}

/** An event cannot be accepted: its name, address, key or payload breaks a rule (each in `problems`). */
export class EventInvalidError extends BotflowError {
  override name = 'EventInvalidError';
  readonly problems: string[];
  constructor(problems: string[]) {
    super('BOTFLOW_EVENT_INVALID', `event refused: ${problems.join('; ')}`);
    this.problems = problems;
  }
}

function positiveOrNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value !== 0;
}

/** What is wrong with `event`'s shape (not its payload's schema: flows/registry check that); empty when fine. */
export function eventProblems(event: OutsideEvent): string[] {
  const problems: string[] = [];
  if (typeof event.name !== 'string' || !EVENT_NAME.test(event.name)) {
    problems.push(
      `name ${JSON.stringify(event.name)}: a letter, then letters, digits, "_", "." or "-" (at most 64)`,
    );
  }
  const to = event.to as Record<string, unknown> | undefined;
  if (to === null || typeof to !== 'object')
    problems.push('to: required, {userId} or {chatId} or {conversation}');
  else if (to.conversation !== undefined) {
    if (typeof to.conversation !== 'string' || !/^(u:-?\d+|c:-?\d+(:u:-?\d+)?)$/.test(to.conversation))
      problems.push(`to.conversation ${JSON.stringify(to.conversation)}: a key like u:42 or c:-7:u:42`);
  } else {
    if (to.userId === undefined && to.chatId === undefined)
      problems.push('to: give userId, chatId (and userId) or conversation');
    if (to.userId !== undefined && !positiveOrNegativeInteger(to.userId))
      problems.push(`to.userId ${JSON.stringify(to.userId)}: an integer id`);
    if (to.chatId !== undefined && !positiveOrNegativeInteger(to.chatId))
      problems.push(`to.chatId ${JSON.stringify(to.chatId)}: an integer id`);
  }
  if (
    event.key !== undefined &&
    (typeof event.key !== 'string' || event.key === '' || event.key.length > MAX_EVENT_KEY_LENGTH)
  )
    problems.push(`key: a non-empty string of at most ${MAX_EVENT_KEY_LENGTH} characters`);
  if (event.at !== undefined && !(typeof event.at === 'number' && Number.isFinite(event.at) && event.at > 0))
    problems.push('at: a time in ms since 1970');
  return problems;
}

/** The conversation an address names, by the strategy updates are keyed with (inbox/keys.ts). */
export function eventConversation(
  to: EventAddress,
  strategy: ConversationKeyStrategy = 'user-in-chat',
): string {
  if (to.conversation !== undefined) return to.conversation;
  if (to.chatId === undefined) return `u:${to.userId}`;
  // A positive chat id is a dialog: the person is the conversation, as for updates.
  if (to.chatId > 0 && to.userId !== undefined) return `u:${to.userId}`;
  if (strategy === 'user' && to.userId !== undefined) return `u:${to.userId}`;
  if (strategy === 'chat' || to.userId === undefined) return `c:${to.chatId}`;
  return `c:${to.chatId}:u:${to.userId}`;
}

/**
 * The inbox entry of `event` (its shape checked; `EventInvalidError` otherwise). `now` stamps an event
 * without `at`. The payload's schema is not checked here.
 */
export function eventEntry(
  event: OutsideEvent,
  strategy: ConversationKeyStrategy = 'user-in-chat',
  now: number = systemClock.now(),
): InboxEntry {
  const problems = eventProblems(event);
  let payloadJson = '{}';
  if (problems.length === 0) {
    try {
      payloadJson = JSON.stringify(event.payload ?? {}) ?? 'null';
    } catch (error) {
      problems.push(`payload: not JSON (${(error as Error).message})`);
    }
    const bytes = Buffer.byteLength(payloadJson);
    if (bytes > MAX_EVENT_PAYLOAD_BYTES)
      problems.push(`payload: ${bytes} bytes as JSON, at most ${MAX_EVENT_PAYLOAD_BYTES}`);
  }
  if (problems.length > 0) throw new EventInvalidError(problems);
  const at = event.at ?? now;
  const stored: StoredEvent = {
    name: event.name,
    payload: JSON.parse(payloadJson),
    key: event.key ?? null,
    ...(event.to.userId !== undefined ? { userId: event.to.userId } : {}),
    ...(event.to.chatId !== undefined ? { chatId: event.to.chatId } : {}),
    at,
  };
  return {
    kind: EVENT_KIND,
    dedupeKey: `e:${event.name}:${event.key ?? randomUUID()}`,
    conversationKey: eventConversation(event.to, strategy),
    updateType: null,
    payload: JSON.stringify(stored),
    receivedAt: now,
  };
}
