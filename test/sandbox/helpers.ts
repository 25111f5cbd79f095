/** Shared steps of the sandbox tests (the sandbox and its client: test/support/sandbox.ts). */
import type { Sandbox } from '../../src/sandbox/index.ts';

/** A person who started the bot, and their dialog id. */
export async function personInDialog(sandbox: Sandbox, name = 'Ann', payload?: string) {
  const user = await sandbox.control.createUser({ first_name: name, last_name: 'Test' });
  const { chat_id } = await sandbox.control.startBot(user.user_id, payload ? { payload } : {});
  return { user, chatId: chat_id };
}

/** A Bot API request without the client (for inputs the client itself would refuse). */
export async function raw(
  sandbox: Sandbox,
  method: string,
  path: string,
  body?: unknown,
  token: string | undefined = sandbox.token,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`${sandbox.baseUrl}${path}`, {
    method,
    headers: {
      ...(token !== undefined ? { authorization: token } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : {} };
}
