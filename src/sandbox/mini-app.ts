/**
 * What a mini-app opened from an `open_app` button gets in the sandbox: an `initData` signed as the
 * platform signs it (secret = HMAC-SHA256 keyed with `WebAppData` over the bot token; hash = hex
 * HMAC-SHA256 of the sorted `key=value` lines), so a mini-app's server can be tested against the sandbox.
 * Written here on its own, not with botflow's validator, so that a mistake in one shows in the other.
 */
import { createHmac } from 'node:crypto';
import type { ChatRecord, UserRecord } from './state.ts';

/** Signs initData fields with the sandbox's token; the token stays inside the closure. */
export type InitDataSigner = (fields: Record<string, string>) => string;

export function initDataSigner(token: string): InitDataSigner {
  const secret = createHmac('sha256', 'WebAppData').update(token).digest();
  return (fields) => {
    const lines = Object.entries(fields).map(([key, value]) => `${key}=${value}`);
    lines.sort();
    const hash = createHmac('sha256', secret).update(lines.join('\n')).digest('hex');
    return new URLSearchParams({ ...fields, hash }).toString();
  };
}

/** The initData of a person opening a mini-app from a message in `chat`, at `now` (ms). */
export function openAppInitData(
  sign: InitDataSigner,
  user: UserRecord,
  chat: ChatRecord,
  now: number,
  queryId: string,
  startParam: string | undefined,
): string {
  const person = {
    id: user.user_id,
    first_name: user.first_name,
    ...(user.last_name ? { last_name: user.last_name } : {}),
    ...(user.username ? { username: user.username } : {}),
    ...(user.locale ? { language_code: user.locale } : {}),
  };
  return sign({
    auth_date: String(Math.floor(now / 1000)),
    query_id: queryId,
    user: JSON.stringify(person),
    chat: JSON.stringify({ id: chat.chat_id, type: chat.type }),
    ...(startParam !== undefined ? { start_param: startParam } : {}),
  });
}
