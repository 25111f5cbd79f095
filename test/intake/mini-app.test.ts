/**
 * Issue 29 (mini-apps): validateInitData checks a mini-app's initData as the platform signs it. The
 * expected hashes are computed here step by step with node:crypto, not with the module under test.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isBotflowError } from '../../src/errors/index.ts';
import { MiniAppDataError, validateInitData } from '../../src/intake/index.ts';

const TOKEN = 'f9LHodD0cOKlB4yG8ksQZS3UYwyGfuOQD0W1lRCxBcUEdA1vGr6GpWmCZFg8AiOzGWB4'; // not a real one
const NOW_MS = 1_780_000_000_000;
const NOW = NOW_MS / 1000;
const USER = {
  id: 400123,
  first_name: 'Ann & Co',
  last_name: 'Test=1',
  username: 'ann',
  language_code: 'ru',
};

/** The platform's signature, written out: secret = HMAC(key "WebAppData", token); hash over sorted lines. */
function sign(fields: Record<string, string>, token = TOKEN): string {
  const secret = createHmac('sha256', 'WebAppData').update(token).digest();
  const lines = Object.entries(fields).map(([k, v]) => `${k}=${v}`);
  lines.sort();
  const dataCheckString = lines.join('\n');
  return createHmac('sha256', secret).update(dataCheckString).digest('hex');
}

/** A query string as the client sends it, values URL-encoded. */
const query = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');

const signedFields = (extra: Record<string, string> = {}) => ({
  auth_date: String(NOW - 60),
  query_id: 'AAE3-q1',
  start_param: 'order-42',
  user: JSON.stringify(USER),
  chat: JSON.stringify({ id: -70012, type: 'chat' }),
  ...extra,
});
const initData = (fields: Record<string, string> = signedFields(), token = TOKEN) =>
  query({ ...fields, hash: sign(fields, token) });

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return error as MiniAppDataError;
  }
  throw new Error('expected validateInitData to throw');
};

describe('validateInitData', () => {
  it('accepts initData signed with the bot token and returns its fields, user and chat as objects', () => {
    const fields = signedFields();
    // The expected hash for these fields, step by step.
    const secret = createHmac('sha256', 'WebAppData').update(TOKEN).digest();
    const dataCheckString = [
      `auth_date=${NOW - 60}`,
      `chat={"id":-70012,"type":"chat"}`,
      'query_id=AAE3-q1',
      'start_param=order-42',
      `user=${JSON.stringify(USER)}`,
    ].join('\n');
    const hash = createHmac('sha256', secret).update(dataCheckString).digest('hex');
    expect(sign(fields)).toBe(hash);

    const data = validateInitData(query({ ...fields, hash }), TOKEN, { now: NOW_MS, maxAgeSeconds: 3600 });
    expect(data).toEqual({
      auth_date: NOW - 60,
      query_id: 'AAE3-q1',
      start_param: 'order-42',
      user: USER,
      chat: { id: -70012, type: 'chat' },
    });
  });

  it('accepts the hash in any field order, in upper case, and the whole string URL-encoded once more', () => {
    const fields = signedFields();
    const hash = sign(fields);
    const reordered = query(
      Object.fromEntries(Object.entries({ ...fields, hash: hash.toUpperCase() }).reverse()),
    );
    expect(validateInitData(reordered, TOKEN, { now: NOW_MS }).user).toEqual(USER);
    const once = encodeURIComponent(initData());
    expect(validateInitData(once, TOKEN, { now: NOW_MS }).start_param).toBe('order-42');
  });

  it('leaves web_app_platform and web_app_version out of the check and out of the result', () => {
    const fields = signedFields();
    const data = `${initData(fields)}&web_app_platform=ios&web_app_version=25.1`;
    const out = validateInitData(data, TOKEN, { now: NOW_MS });
    expect(out).not.toHaveProperty('web_app_platform');
    expect(out).not.toHaveProperty('web_app_version');
  });

  it('refuses a tampered field with BOTFLOW_INIT_DATA_SIGNATURE', () => {
    const fields = signedFields();
    const hash = sign(fields);
    const tampered = query({ ...fields, user: JSON.stringify({ ...USER, id: 1 }), hash });
    const error = refusal(() => validateInitData(tampered, TOKEN, { now: NOW_MS }));
    expect(error).toBeInstanceOf(MiniAppDataError);
    expect(isBotflowError(error, 'BOTFLOW_INIT_DATA_SIGNATURE')).toBe(true);
    const added = `${initData(fields)}&is_admin=true`;
    expect(refusal(() => validateInitData(added, TOKEN, { now: NOW_MS })).code).toBe(
      'BOTFLOW_INIT_DATA_SIGNATURE',
    );
  });

  it('refuses initData signed with another token, and never shows the token', () => {
    const other = initData(signedFields(), `${TOKEN}x`);
    const error = refusal(() => validateInitData(other, TOKEN, { now: NOW_MS }));
    expect(error.code).toBe('BOTFLOW_INIT_DATA_SIGNATURE');
    expect(error.message).not.toContain(TOKEN);
    expect(JSON.stringify(error)).not.toContain(TOKEN);
    expect(String(error.stack)).not.toContain(TOKEN);
  });

  it('refuses a hash that is not 64 hex digits without comparing', () => {
    const fields = signedFields();
    for (const hash of ['', 'abc', `${sign(fields)}00`, 'z'.repeat(64)]) {
      const error = refusal(() => validateInitData(query({ ...fields, hash }), TOKEN, { now: NOW_MS }));
      expect(error.code, hash).toBe('BOTFLOW_INIT_DATA_SIGNATURE');
    }
  });

  it('refuses an auth_date older than maxAgeSeconds with BOTFLOW_INIT_DATA_EXPIRED', () => {
    const old = initData(signedFields({ auth_date: String(NOW - 3601) }));
    const error = refusal(() => validateInitData(old, TOKEN, { now: NOW_MS, maxAgeSeconds: 3600 }));
    expect(error.code).toBe('BOTFLOW_INIT_DATA_EXPIRED');
    expect(error.message).toContain('3601 s ago');
    expect(validateInitData(old, TOKEN, { now: NOW_MS, maxAgeSeconds: 3601 }).auth_date).toBe(NOW - 3601);
    // The default allows one day.
    const dayOld = initData(signedFields({ auth_date: String(NOW - 86_401) }));
    expect(refusal(() => validateInitData(dayOld, TOKEN, { now: NOW_MS })).code).toBe(
      'BOTFLOW_INIT_DATA_EXPIRED',
    );
  });

  it('refuses an auth_date far ahead of the clock (milliseconds, or a wrong clock)', () => {
    const ms = initData(signedFields({ auth_date: String(NOW_MS) }));
    expect(refusal(() => validateInitData(ms, TOKEN, { now: NOW_MS })).code).toBe(
      'BOTFLOW_INIT_DATA_EXPIRED',
    );
    const soon = initData(signedFields({ auth_date: String(NOW + 120) }));
    expect(validateInitData(soon, TOKEN, { now: NOW_MS }).auth_date).toBe(NOW + 120);
  });

  it('refuses a missing hash, a field twice, a missing auth_date and malformed JSON as BOTFLOW_INIT_DATA_INVALID', () => {
    const fields = signedFields();
    const cases = [
      query(fields), // no hash
      '',
      '   ',
      `${initData(fields)}&query_id=again`,
      `${initData(fields)}&hash=${sign(fields)}`,
      initData({ query_id: 'q', user: JSON.stringify(USER) }), // no auth_date
      initData(signedFields({ auth_date: 'yesterday' })),
      initData(signedFields({ user: 'not json' })),
      initData(signedFields({ user: '[1,2]' })),
    ];
    for (const data of cases) {
      const error = refusal(() => validateInitData(data, TOKEN, { now: NOW_MS }));
      expect(error.code, data).toBe('BOTFLOW_INIT_DATA_INVALID');
    }
  });

  it('refuses to work without a token or with a nonsensical maxAgeSeconds', () => {
    const data = initData();
    expect(refusal(() => validateInitData(data, '')).code).toBe('BOTFLOW_OPTIONS_INVALID');
    expect(refusal(() => validateInitData(data, TOKEN, { maxAgeSeconds: 0 })).code).toBe(
      'BOTFLOW_OPTIONS_INVALID',
    );
  });
});
