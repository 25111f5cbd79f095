/**
 * A mini-app's `initData`, checked the way the platform signs it (and its Go SDK checks it): the
 * secret is HMAC-SHA256 keyed with the string `WebAppData` over the bot token; the hash is the hex
 * HMAC-SHA256, keyed with that secret, of every other field as a `key=value` line, the lines sorted and
 * joined by `\n`. `web_app_platform` and `web_app_version` are left out of the check (the client adds
 * them; the Go SDK leaves them out too) and out of the result. An `auth_date` older than `maxAgeSeconds`
 * is refused. The bot token is never put in a message.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { BotflowCode } from '../errors/catalogue.ts';
import { BotflowError } from '../errors/index.ts';
import { systemClock } from '../store/ports/clock.ts';

/** A mini-app's `initData` was refused: malformed, signed with another token or tampered with, or too old. */
export class MiniAppDataError extends BotflowError {
  override name = 'MiniAppDataError';
  constructor(
    code: Extract<
      BotflowCode,
      'BOTFLOW_INIT_DATA_INVALID' | 'BOTFLOW_INIT_DATA_SIGNATURE' | 'BOTFLOW_INIT_DATA_EXPIRED'
    >,
    message: string,
  ) {
    super(code, message);
  }
}

/** The person who opened the mini-app, as the platform describes them (unknown fields are kept). */
export interface MiniAppUser {
  id: number;
  first_name?: string;
  last_name?: string;
  username?: string;
  language_code?: string;
  photo_url?: string;
  [field: string]: unknown;
}

/** The signed fields of an `initData`, by their own names; `user` and `chat` parsed from their JSON. */
export interface MiniAppInitData {
  /** When the platform signed the data, in Unix seconds. */
  auth_date: number;
  user?: MiniAppUser;
  chat?: { id?: number; type?: string; [field: string]: unknown };
  /** The `payload` of the `open_app` button (or link) that opened the mini-app. */
  start_param?: string;
  query_id?: string;
  /** Any other signed field, as its decoded string. */
  [field: string]: unknown;
}

export interface ValidateInitDataOptions {
  /** How old `auth_date` may be (default 86400: one day); keep it short for anything that matters. */
  maxAgeSeconds?: number;
  /** The time to judge `auth_date` by, in Unix milliseconds (default: the system clock, `systemClock.now()`). */
  now?: number;
}

/** Seconds `auth_date` may lie ahead of `now` (clocks differ a little); further ahead is refused. */
export const INIT_DATA_CLOCK_SKEW_SECONDS = 300;
const DEFAULT_MAX_AGE_SECONDS = 86_400;
/** Added by the client beside the signed data; not signed (the Go SDK leaves them out too). */
const UNSIGNED = new Set(['hash', 'web_app_platform', 'web_app_version']);
const JSON_FIELDS = ['user', 'chat'] as const;

const invalid = (message: string) => new MiniAppDataError('BOTFLOW_INIT_DATA_INVALID', message);

/**
 * Checks a mini-app's `initData` (the query string `window.WebApp.initData` gives) against the bot's
 * `token` and returns its signed fields. Throws MiniAppDataError: `BOTFLOW_INIT_DATA_INVALID` (not a
 * query string, a field twice, no hash or auth_date, `user` or `chat` not a JSON object),
 * `BOTFLOW_INIT_DATA_SIGNATURE` (the hash does not match: another bot's token, or a field was changed),
 * `BOTFLOW_INIT_DATA_EXPIRED` (auth_date older than `maxAgeSeconds`, or further ahead than the clock skew).
 */
export function validateInitData(
  initData: string,
  token: string,
  options: ValidateInitDataOptions = {},
): MiniAppInitData {
  if (typeof token !== 'string' || token === '')
    throw new BotflowError(
      'BOTFLOW_OPTIONS_INVALID',
      'validateInitData needs the bot token: an empty key would let anyone sign initData',
    );
  const maxAge = options.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS;
  if (!Number.isFinite(maxAge) || maxAge <= 0)
    throw new BotflowError(
      'BOTFLOW_OPTIONS_INVALID',
      `maxAgeSeconds must be a positive number, not ${maxAge}`,
    );
  const fields = parseFields(initData);

  const hash = fields.get('hash');
  if (hash === undefined) throw invalid('initData has no hash: pass window.WebApp.initData as it is');
  const lines = [...fields]
    .filter(([key]) => !UNSIGNED.has(key))
    .map(([key, value]) => `${key}=${value}`)
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const secret = createHmac('sha256', 'WebAppData').update(token).digest();
  const expected = createHmac('sha256', secret).update(lines.join('\n')).digest();
  const given = /^[0-9a-f]{64}$/i.test(hash) ? Buffer.from(hash, 'hex') : undefined;
  if (!given || !timingSafeEqual(given, expected))
    throw new MiniAppDataError(
      'BOTFLOW_INIT_DATA_SIGNATURE',
      "initData's hash does not match: it was signed for another bot, or a field was changed",
    );

  const authDate = fields.get('auth_date');
  if (authDate === undefined || !/^\d{1,15}$/.test(authDate))
    throw invalid(`initData's auth_date must be Unix seconds, not ${JSON.stringify(authDate ?? null)}`);
  const nowSeconds = Math.floor((options.now ?? systemClock.now()) / 1000);
  const age = nowSeconds - Number(authDate);
  if (age > maxAge)
    throw new MiniAppDataError(
      'BOTFLOW_INIT_DATA_EXPIRED',
      `initData was signed ${age} s ago, more than the ${maxAge} s allowed: open the mini-app again`,
    );
  if (age < -INIT_DATA_CLOCK_SKEW_SECONDS)
    throw new MiniAppDataError(
      'BOTFLOW_INIT_DATA_EXPIRED',
      `initData's auth_date lies ${-age} s ahead of now: check the server's clock`,
    );

  const out: MiniAppInitData = { auth_date: Number(authDate) };
  for (const [key, value] of fields) {
    if (UNSIGNED.has(key) || key === 'auth_date') continue;
    out[key] = (JSON_FIELDS as readonly string[]).includes(key) ? jsonObject(key, value) : value;
  }
  return out;
}

/** The fields of the query string, each at most once (the platform sends each once). */
function parseFields(initData: string): Map<string, string> {
  if (typeof initData !== 'string' || initData.trim() === '')
    throw invalid('initData is empty: pass window.WebApp.initData from the mini-app');
  let text = initData.trim().replace(/^[?#]/, '');
  // Still URL-encoded as a whole (as it stands in the launch URL's fragment): decode it once.
  if (!text.includes('=') && /%3D/i.test(text)) {
    try {
      text = decodeURIComponent(text);
    } catch {
      throw invalid('initData is not a query string (it does not URL-decode)');
    }
  }
  const fields = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(text)) {
    if (fields.has(key)) throw invalid(`initData has the field "${key}" twice`);
    fields.set(key, value);
  }
  if (!fields.size) throw invalid('initData is not a query string of key=value fields');
  return fields;
}

function jsonObject(key: string, value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalid(`initData's ${key} is not JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw invalid(`initData's ${key} is not a JSON object`);
  return parsed as Record<string, unknown>;
}
