/** Shared setup of the sandbox tests: a sandbox on an ephemeral port, the typed client, polling helpers. */
import { BotApi } from '../../src/client/client.ts';
import { type Sandbox, type StartOptions, startSandbox } from '../../src/sandbox/index.ts';

export interface Harness {
  sandbox: Sandbox;
  api: BotApi;
  close(): Promise<void>;
}

/** Starts a sandbox (limits off unless given) and a client for it. */
export async function harness(options: StartOptions = {}): Promise<Harness> {
  const sandbox = await startSandbox({ limits: false, ...options });
  const api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
  return {
    sandbox,
    api,
    async close() {
      await api.close();
      await sandbox.close();
    },
  };
}

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
