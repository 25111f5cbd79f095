/**
 * From a decoded update to what the engine does with it: the flow event a running session receives, the
 * trigger that could start a new session, a button press to verify, or the person leaving. Pure.
 */
import { DecodeError, decodeUpdate, type Message, type Update } from '../../client/schemas/index.ts';
import { badIntegers } from '../../inbox/keys.ts';
import type { EventMeta, FlowEvent, FlowInput } from './contract.ts';

/** A button press before it is verified against the session. */
export interface Press {
  payload: string;
  callbackId: string;
  message?: Message;
  messageId?: string;
  meta: EventMeta;
}

/** What an update means to the engine. */
export type Incoming =
  /** An event for the running session; `trigger` says how it could start a flow when none runs. */
  | { kind: 'event'; event: FlowEvent; trigger?: FlowInput['trigger'] }
  /** A callback button was pressed. */
  | { kind: 'press'; press: Press }
  /** Not for this bot (a command addressed to another bot in a group). */
  | { kind: 'ignore'; reason: string }
  /** The person stopped the bot or removed the dialog: their timers and unsent calls go. */
  | { kind: 'leave'; reason: 'bot_stopped' | 'dialog_removed'; event: FlowEvent };

/**
 * Splits `/name args` into name and args; undefined when `text` is no command. In groups a command may
 * name its bot: `/name@bot args` or `@bot /name args`. With `botUsername` known, a command addressed to
 * another bot gives `{ otherBot }` (it is not ours to act on); without it, any address is accepted.
 */
export function parseCommand(
  text: string | undefined,
  botUsername?: string,
): { name: string; args: string } | { otherBot: string } | undefined {
  if (!text) return undefined;
  let t = text.trim();
  const ours = (name: string) => !botUsername || name.toLowerCase() === botUsername.toLowerCase();
  const mention = /^@(\w+)[\s,:]+(\/[\s\S]*)$/.exec(t);
  if (mention) {
    if (!ours(mention[1]!)) return { otherBot: mention[1]! };
    t = mention[2]!;
  }
  const match = /^\/([^\s@/]+)(?:@(\S+))?(?:\s+([\s\S]*))?$/.exec(t);
  if (!match) return undefined;
  if (match[2] !== undefined && !ours(match[2])) return { otherBot: match[2] };
  return { name: match[1]!, args: (match[3] ?? '').trim() };
}

/** Interprets one update of a conversation. */
export function interpretUpdate(update: Update, meta: EventMeta, botUsername?: string): Incoming {
  switch (update.update_type) {
    case 'message_created': {
      const message = update.message;
      const text = message.body.text;
      const command = parseCommand(text, botUsername);
      if (command && 'otherBot' in command)
        return { kind: 'ignore', reason: `a command addressed to another bot (@${command.otherBot})` };
      if (command) {
        return {
          kind: 'event',
          event: { type: 'command', name: command.name, args: command.args, message, meta },
          trigger: { kind: 'command', name: command.name, args: command.args },
        };
      }
      return {
        kind: 'event',
        event: {
          type: 'message',
          ...(text !== undefined ? { text } : {}),
          attachments: message.body.attachments ?? [],
          message,
          meta,
        },
        trigger: { kind: 'message', ...(text !== undefined ? { text } : {}) },
      };
    }
    case 'message_callback':
      return {
        kind: 'press',
        press: {
          payload: update.callback.payload ?? '',
          callbackId: update.callback.callback_id,
          ...(update.message ? { message: update.message, messageId: update.message.body.mid } : {}),
          meta,
        },
      };
    case 'bot_started':
      return {
        kind: 'event',
        event: {
          type: 'bot_started',
          ...(update.payload !== undefined ? { payload: update.payload } : {}),
          meta,
        },
        trigger: {
          kind: 'bot_started',
          ...(update.payload !== undefined ? { payload: update.payload } : {}),
        },
      };
    case 'bot_stopped':
    case 'dialog_removed':
      return { kind: 'leave', reason: update.update_type, event: { type: 'update', update, meta } };
    default:
      return { kind: 'event', event: { type: 'update', update, meta } };
  }
}

function numeric(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The facts every event of an update carries. `fallbackChatId` fills a dialog callback without a chat. */
export function metaOf(
  update: Update,
  place: { chatId: unknown; userId: unknown },
  conversation: string,
  receivedAt: number,
  fallbackChatId?: number | null,
): EventMeta {
  const chatId = numeric(place.chatId) ?? fallbackChatId ?? undefined;
  const userId = numeric(place.userId);
  const locale = (update as { user_locale?: unknown }).user_locale;
  return {
    conversation,
    ...(chatId !== undefined ? { chatId } : {}),
    ...(userId !== undefined ? { userId } : {}),
    ...(typeof locale === 'string' ? { locale } : {}),
    now: numeric(update.timestamp) ?? receivedAt,
  };
}

/**
 * An inbox row's update, decoded for the engine; or why it is ignored: integer fields that are not
 * integers (or past 2^53 - 1, where ids arrive rounded), or a shape the platform does not send.
 */
export function decodeStoredUpdate(id: number, payload: string): { update: Update } | { ignored: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    // Plain Error: an internal invariant (intake only commits JSON rows), not something a user can cause.
    throw new Error(`inbox row ${id}: payload is not JSON`);
  }
  const wrong = badIntegers(raw);
  if (wrong.length > 0) return { ignored: `${wrong.join('; ')}: the platform sends integer ids and times` };
  try {
    return { update: decodeUpdate(raw) };
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    return { ignored: `not an update the platform sends: ${error.message}` };
  }
}
