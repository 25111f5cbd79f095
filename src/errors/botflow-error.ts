/**
 * The base of every error a user of botflow can meet. Each carries a stable code of the catalogue
 * (catalogue.ts) in `botflowCode`, and in `code` too, except where a class had its own `code` before the
 * catalogue and keeps it (ApiError: the platform's code; NetworkError: the socket's; TaskError: the task's;
 * SandboxControlError: the control API's). The message says what was wrong, where, and what to do; `cause`
 * holds the error underneath, when there is one. Never put a secret (the bot token) in a message.
 */
import { brandClass } from './brand.ts';
import type { BotflowCode } from './catalogue.ts';

/**
 * An error of botflow's catalogue: `botflowCode` (and usually `code`) is its stable `BOTFLOW_…` code.
 *
 * @example
 * ```ts
 * import { BotflowError } from 'botflow-engine/client';
 *
 * try {
 *   await somethingOfBotflow();
 * } catch (error) {
 *   if (error instanceof BotflowError) console.error(error.botflowCode, error.message);
 *   else throw error;
 * }
 *
 * declare function somethingOfBotflow(): Promise<void>;
 * ```
 */
export class BotflowError extends Error {
  override name = 'BotflowError';
  /** The catalogue's code, e.g. `BOTFLOW_CONFIG_INVALID`: stable, listed in docs/errors.md. */
  readonly botflowCode: BotflowCode;
  /** The catalogue's code, unless the class keeps a code of its own (see above). */
  readonly code: string;

  constructor(code: BotflowCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.botflowCode = code;
    this.code = code;
  }
}
// Recognised whichever copy of botflow made it (a registry loaded through tsx has its own): brand.ts.
brandClass(BotflowError, 'BotflowError');

/**
 * True when `value` is a botflow error (from any copy of botflow), with `code` when given.
 *
 * @example
 * ```ts
 * import { BotApi, isBotflowError } from 'botflow-engine/client';
 *
 * const api = new BotApi({ token: process.env.BOT_TOKEN ?? '', baseUrl: 'https://platform-api2.max.ru' });
 * try {
 *   await api.getMyInfo();
 * } catch (error) {
 *   // Holds for an error made by another copy of botflow too, where `instanceof` does not.
 *   if (isBotflowError(error, 'BOTFLOW_NETWORK_ERROR')) console.error('the platform is unreachable');
 * }
 * ```
 */
export function isBotflowError(value: unknown, code?: BotflowCode): value is BotflowError {
  return value instanceof BotflowError && (code === undefined || value.botflowCode === code);
}
