/**
 * Signed callback-button payloads. A flow names its buttons (`id` or `id:value`); before a keyboard is
 * sent the engine turns each payload into `<instance>.<id>[:<value>].<mac>`, where `instance` is the step
 * instance the keyboard was drawn for (base 36) and `mac` an HMAC over the conversation, the instance and
 * the payload. A press is then recognised as current, stale (drawn for a step the conversation has left)
 * or not ours (forged, or pressed by someone the keyboard was not drawn for).
 */
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import { KEYBOARD_LIMITS } from '../../client/schemas/keyboard.ts';
import { BotflowError } from '../../errors/index.ts';

const MAC_LENGTH = 8;

/** A button payload that cannot be sent: too long once signed, or empty. */
export class ButtonPayloadError extends BotflowError {
  override name = 'ButtonPayloadError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_BUTTON_PAYLOAD', message, options);
  }
}

/** What a pressed payload says, once verified. */
export type VerifiedPress =
  | { ok: true; instance: number; button: string; value?: string }
  | { ok: false; reason: 'malformed' | 'bad_signature' };

/** Signs and verifies button payloads with one secret. */
export class ButtonSigner {
  readonly #secret: KeyObject;

  constructor(secret: string) {
    if (secret.length < 16) {
      throw new ButtonPayloadError('the button-signing secret must be at least 16 characters long');
    }
    this.#secret = createSecretKey(Buffer.from(secret)); // prepared once: signing runs for every button drawn
  }

  #mac(conversationKey: string, instance: string, payload: string): string {
    return createHmac('sha256', this.#secret)
      .update(`${conversationKey}\n${instance}\n${payload}`)
      .digest('base64url')
      .slice(0, MAC_LENGTH);
  }

  /** The payload to put on the button: `<instance>.<payload>.<mac>`, at most 1024 characters. */
  sign(conversationKey: string, instance: number, payload: string): string {
    if (payload === '' || payload.startsWith(':')) {
      throw new ButtonPayloadError(
        `callback button payload "${payload}" has no button id: give each button an id (\`id\` or \`id:value\`)`,
      );
    }
    const stamp = instance.toString(36);
    const signed = `${stamp}.${payload}.${this.#mac(conversationKey, stamp, payload)}`;
    if (signed.length > KEYBOARD_LIMITS.callbackPayload) {
      throw new ButtonPayloadError(
        `callback button "${payload.slice(0, 40)}…" is ${signed.length} characters once signed; the platform ` +
          `allows ${KEYBOARD_LIMITS.callbackPayload}: shorten its id or value (keep data in the flow's context)`,
      );
    }
    return signed;
  }

  /** Checks a pressed payload against the conversation it arrived in. */
  verify(conversationKey: string, signed: string): VerifiedPress {
    const first = signed.indexOf('.');
    const last = signed.lastIndexOf('.');
    if (first <= 0 || last <= first + 1 || signed.length - last - 1 !== MAC_LENGTH) {
      return { ok: false, reason: 'malformed' };
    }
    const stamp = signed.slice(0, first);
    const payload = signed.slice(first + 1, last);
    const instance = Number.parseInt(stamp, 36);
    if (!/^[0-9a-z]+$/.test(stamp) || !Number.isSafeInteger(instance))
      return { ok: false, reason: 'malformed' };
    const expected = Buffer.from(this.#mac(conversationKey, stamp, payload));
    const given = Buffer.from(signed.slice(last + 1));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { ok: false, reason: 'bad_signature' };
    }
    const colon = payload.indexOf(':');
    return colon < 0
      ? { ok: true, instance, button: payload }
      : { ok: true, instance, button: payload.slice(0, colon), value: payload.slice(colon + 1) };
  }
}
