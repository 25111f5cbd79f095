/**
 * `startSandbox(options)`: builds the sandbox and listens on 127.0.0.1 (an ephemeral port unless
 * told otherwise). Returns what a test or the CLI needs: the base URL, the token, the bot, a typed
 * control client, the request log and `close()`.
 */
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { BotflowError } from '../errors/index.ts';
import { buildSandbox, type SandboxOptions } from './app.ts';
import { type BotIdentity, identityOf, type NewBot, type SandboxBot, type SandboxBots } from './bots.ts';
import { SandboxControl } from './control-client.ts';
import type { Update } from './delivery/hub.ts';
import { exposureWarning } from './local-routes.ts';
import type { RequestLog } from './request-log.ts';
import type { UserRecord } from './state.ts';

export interface StartOptions extends SandboxOptions {
  /** Port to listen on; default 0 (any free port). */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
}

/** A running sandbox. `token` is not enumerable, so `JSON.stringify(sandbox)` never shows it. */
export interface Sandbox {
  /** e.g. `http://127.0.0.1:41234`: the Bot API base URL. */
  baseUrl: string;
  /** The bot token clients must send. */
  readonly token: string;
  /**
   * Whether `GET /_sandbox/info` shows the token: asked with `showToken`, the sandbox made it itself and
   * listens on a loopback interface (127.x, ::1, localhost).
   */
  tokenShown: boolean;
  /** The bot's identity (GET /me). */
  bot: Pick<UserRecord, 'user_id' | 'first_name' | 'username'>;
  /** Acts as people through the `/_sandbox/` HTTP API. */
  control: SandboxControl;
  /** Every Bot API request answered so far. */
  requestLog: RequestLog;
  /** The fastify app (inject(), extra routes). */
  app: FastifyInstance;
  /**
   * Calls `listener` with every update produced for the default bot, or for the bot `botId` (whatever
   * the transport); returns the unsubscribe.
   */
  onUpdate(listener: (update: Update) => void, botId?: number): () => void;
  /**
   * Hosts one more bot (docs/sandbox.md, "Several bots"): its own token (`token`, else a fresh one; not
   * enumerable in the answer), id, chats, updates, webhooks and limits; the people are shared.
   */
  addBot(bot: NewBot): BotIdentity & { readonly token: string };
  /** The hosted bots, the default one first (no tokens). */
  bots(): BotIdentity[];
  /** The token of the bot `id`, for in-process clients (as `token` is the default bot's); throws for an unknown bot. */
  tokenOf(id: number): string;
  /** Removes a bot other than the default one, with its chats, updates and subscriptions. */
  removeBot(id: number): void;
  /** Stops listening, ends long polls and event streams, saves the state when persisted. */
  close(): Promise<void>;
}

/** Starts a sandbox and resolves once it accepts connections. */
export async function startSandbox(options: StartOptions = {}): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  // The interface it listens on is a name people will use for the pages: allowed with localhost.
  const named = isIP(host) === 0 && host !== 'localhost' ? [host] : [];
  const warning = exposureWarning(host);
  const app = await buildSandbox({
    ...options,
    allowedHosts: [...(options.allowedHosts ?? []), ...named],
    // Beyond this machine the control API has no authentication: it never hands out the token there.
    showToken: options.showToken === true && warning === undefined,
  });
  if (warning) options.logger?.warn({ host }, warning);
  try {
    await app.listen({ port: options.port ?? 0, host });
  } catch (error) {
    await app.close(); // release the state (and its SQLite file) opened by buildSandbox
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const { platform, requestLog, token, tokenShown, bots } = app.sandbox;
  if (!options.origin) {
    platform.origin = baseUrl;
    // Bots added later are made with the app's origin: set it for them too.
    for (const b of bots.all()) b.platform.origin = baseUrl;
  }
  const control = new SandboxControl(baseUrl);
  const sandbox = {
    baseUrl,
    bot: {
      user_id: platform.data.bot.user_id,
      first_name: platform.data.bot.first_name,
      username: platform.data.bot.username,
    },
    control,
    requestLog,
    tokenShown,
    app,
    onUpdate: (listener: (update: Update) => void, botId?: number) =>
      botOf(bots, botId).platform.hub.onUpdate(listener),
    addBot: (bot: NewBot) => {
      const added = bots.add(bot, platform.now());
      const answer = identityOf(added);
      Object.defineProperty(answer, 'token', { value: added.token, enumerable: false });
      return answer as BotIdentity & { readonly token: string };
    },
    bots: () => bots.list(),
    tokenOf: (id: number) => botOf(bots, id).token,
    removeBot: (id: number) => bots.remove(id),
    close: async () => {
      await control.close();
      await app.close();
    },
  };
  Object.defineProperty(sandbox, 'token', { value: token, enumerable: false });
  return sandbox as Sandbox;
}

/** The bot `id` (default: the default bot); throws when the sandbox has no such bot. */
function botOf(bots: SandboxBots, id: number | undefined): SandboxBot {
  if (id === undefined) return bots.default;
  const bot = bots.byId(id);
  if (!bot) throw new BotflowError('BOTFLOW_SANDBOX_USAGE', `the sandbox has no bot ${id}`);
  return bot;
}
