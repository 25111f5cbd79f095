/** People in the transcript harness's sandbox, by user id, for tests that drive the control API directly. */
import type { Harness } from '../../src/testing/harness.ts';

/** Creates a person (not yet talking to the bot) and returns their user id. */
export async function personId(h: Harness, name: string, locale?: string): Promise<number> {
  const user = await h.sandbox.control.createUser({ first_name: name, ...(locale ? { locale } : {}) });
  return user.user_id;
}

/** What a person's dialog with the bot shows, oldest first. */
export async function messagesOf(h: Harness, userId: number) {
  return (await h.sandbox.control.view(userId)).messages;
}

/** The bot's latest message in a person's dialog. */
export async function lastBot(h: Harness, userId: number) {
  const mine = (await messagesOf(h, userId)).filter((m) => m.from === 'bot');
  return mine[mine.length - 1]!;
}
