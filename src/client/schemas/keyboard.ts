import { z } from 'zod';
import { int, obj } from './common.ts';

const buttonText = z.string();

/** Presses produce a `message_callback` update carrying `payload` (≤ 1024 characters). */
export const CallbackButton = obj({
  type: z.literal('callback'),
  text: buttonText,
  payload: z.string(),
  intent: z.string().optional(),
});
export const LinkButton = obj({ type: z.literal('link'), text: buttonText, url: z.string() });
export const RequestContactButton = obj({ type: z.literal('request_contact'), text: buttonText });
export const RequestGeoLocationButton = obj({
  type: z.literal('request_geo_location'),
  text: buttonText,
  quick: z.boolean().optional(),
});
export const OpenAppButton = obj({
  type: z.literal('open_app'),
  text: buttonText,
  web_app: z.string().optional(),
  contact_id: int.optional(),
  payload: z.string().optional(),
});
/** Sends its text into the chat as the person. */
export const MessageButton = obj({ type: z.literal('message'), text: buttonText });
export const ClipboardButton = obj({ type: z.literal('clipboard'), text: buttonText, payload: z.string() });
export const ChatButton = obj({
  type: z.literal('chat'),
  text: buttonText,
  chat_title: z.string(),
  chat_description: z.string().optional(),
  start_payload: z.string().optional(),
  uuid: int.optional(),
});

/** A button kind this version does not know; kept as it came. */
export const UnknownButton = obj({ type: z.string(), text: z.string().optional() });

export const KnownButton = z.discriminatedUnion('type', [
  CallbackButton,
  LinkButton,
  RequestContactButton,
  RequestGeoLocationButton,
  OpenAppButton,
  MessageButton,
  ClipboardButton,
  ChatButton,
]);
/**
 * A button of an inline keyboard, as the platform sends it (a type this version does not know decodes too).
 *
 * @example
 * ```ts
 * import { Button } from 'botflow-engine/client';
 *
 * const parsed = Button.safeParse({ type: 'callback', text: 'Yes', payload: 'answer:yes' });
 * if (parsed.success) console.log(parsed.data.text);
 * ```
 */
export const Button = z.union([KnownButton, UnknownButton]);
/** A keyboard button of a known type (callback, link, request_contact, request_geo_location, chat, message). */
export type Button = z.infer<typeof KnownButton>;
export type CallbackButton = z.infer<typeof CallbackButton>;
export type LinkButton = z.infer<typeof LinkButton>;

/**
 * Rows of buttons.
 *
 * @example
 * ```ts
 * import { Keyboard } from 'botflow-engine/client';
 *
 * const keyboard: Keyboard = { buttons: [[{ type: 'link', text: 'Open', url: 'https://example.com' }]] };
 * console.log(Keyboard.parse(keyboard).buttons.length); // 1
 * ```
 */
export const Keyboard = obj({ buttons: z.array(z.array(Button)) });
export type Keyboard = { buttons: Button[][] };

/** Button kinds that limit their row to 3 buttons. */
export const WIDE_BUTTON_TYPES: ReadonlySet<string> = new Set([
  'link',
  'open_app',
  'request_geo_location',
  'request_contact',
]);

/** Documented keyboard limits. */
export const KEYBOARD_LIMITS = {
  buttons: 210,
  rows: 30,
  perRow: 7,
  perRowWide: 3,
  textMin: 1,
  textMax: 128,
  callbackPayload: 1024,
  clipboardPayload: 1024,
  linkUrl: 2048,
} as const;
