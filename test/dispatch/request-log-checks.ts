// Checks that read the sandbox's own request log and messages (the setup: test/support/sandbox.ts).
import type { BotApi } from '../../src/client/client.ts';
import type { Sandbox } from '../../src/sandbox/index.ts';
import type { LoggedRequest } from '../../src/sandbox/request-log.ts';
import { maxInWindow } from './fakes.ts';

/** Dialog chat ids of `count` people who started the bot. */
export async function dialogs(
  sandbox: Sandbox,
  count: number,
): Promise<{ userId: number; chatId: number }[]> {
  const out: { userId: number; chatId: number }[] = [];
  for (let i = 0; i < count; i++) {
    const user = await sandbox.control.createUser({ first_name: `P${i}` });
    const { chat_id } = await sandbox.control.startBot(user.user_id);
    out.push({ userId: user.user_id, chatId: chat_id });
  }
  return out;
}

/** The largest number of accepted requests in any one-second window, overall and for the busiest chat. */
export function windowPeaks(log: LoggedRequest[]): { global: number; perChat: number; http429: number } {
  const accepted = log.filter((r) => r.status !== 429);
  const byChat = new Map<number, number[]>();
  for (const r of accepted)
    if (r.chat !== undefined) byChat.set(r.chat, [...(byChat.get(r.chat) ?? []), r.time]);
  return {
    global: maxInWindow(
      accepted.map((r) => r.time),
      1000,
    ),
    perChat: Math.max(0, ...[...byChat.values()].map((times) => maxInWindow(times, 1000))),
    http429: log.length - accepted.length,
  };
}

/** Texts of the bot's messages in a chat, oldest first, as the platform stored them. */
export async function textsIn(api: BotApi, chatId: number): Promise<string[]> {
  const { messages } = await api.getMessages({ chat_id: chatId, count: 100 });
  return messages.map((m) => m.body.text ?? '').reverse();
}
