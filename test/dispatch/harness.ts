// A sandbox with its limits on, a client and a scheduler in front of it, and checks that read the
// sandbox's own request log.
import { BotApi } from '../../src/client/client.ts';
import { Scheduler } from '../../src/dispatch/scheduler/scheduler.ts';
import type { Limits } from '../../src/dispatch/scheduler/types.ts';
import { type Sandbox, type StartOptions, startSandbox } from '../../src/sandbox/index.ts';
import type { LoggedRequest } from '../../src/sandbox/request-log.ts';
import { maxInWindow } from './fakes.ts';

export interface DispatchHarness {
  sandbox: Sandbox;
  api: BotApi;
  scheduler: Scheduler;
  close(): Promise<void>;
}

/** Starts a sandbox (real limits unless told) and a scheduler with `limits` in front of a client for it. */
export async function dispatchHarness(
  options: {
    limits?: Limits;
    sandbox?: StartOptions;
    api?: Partial<ConstructorParameters<typeof BotApi>[0]>;
  } = {},
): Promise<DispatchHarness> {
  const sandbox = await startSandbox(options.sandbox ?? {});
  const api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl, ...options.api });
  const scheduler = new Scheduler({ api, ...(options.limits ? { limits: options.limits } : {}) });
  return {
    sandbox,
    api,
    scheduler,
    async close() {
      scheduler.close();
      await api.close();
      await sandbox.close();
    },
  };
}

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
