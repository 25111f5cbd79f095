/**
 * `botflow sandbox [--port N] [--token T] [--no-limits] [--db FILE] [--host H] [--realistic] …`: runs the sandbox
 * alone until interrupted. When ready it prints one JSON line `{"baseUrl": …, "token": …}`.
 */

import { BotflowError } from '../errors/index.ts';
import { identityOf } from '../sandbox/bots.ts';
import { exposureWarning } from '../sandbox/local-routes.ts';
import { startSandbox } from '../sandbox/start.ts';
import type { Command } from './command.ts';

const HELP = `usage: botflow sandbox [options]

Runs a local emulation of the messenger platform (Bot API, upload host, webhooks, long polling and
the /_sandbox/ control API). When ready, prints one JSON line: {"baseUrl": ..., "token": ...}.

options:
  --port N        port to listen on (default: any free port)
  --host H        interface to listen on (default 127.0.0.1)
  --token T       bot token clients must send (default: a fresh sandbox-token-...)
  --bots A,B,...  host several bots, named A, B, ... (the first is the default bot, with --token
                  when given); prints one JSON line per bot: {"baseUrl", "token", "bot": {id, name, username}}
  --no-limits     do not enforce the 30/s and 2/s per chat limits
  --limits-scale X  multiply the limits by X (e.g. 10 for fast tests)
  --db FILE       keep the state in this SQLite file (default: in memory)
  --realistic     the platform's pace: uploads process for seconds, webhook retries 30 s then 60 s apart
                  (default: fast, for tests)
  --show-notification-only-answers
                  show callback answers that carry only a notification, marked (the platform's
                  clients do not display them)
  --callbacks-without-message SHARE, --callbacks-without-chat-id SHARE
                  this share (0..1) of button presses arrive without their message, or without
                  recipient.chat_id, as the platform sometimes sends them
`;

function parse(args: string[]): {
  port?: number;
  host?: string;
  token?: string;
  bots?: string[];
  noLimits: boolean;
  scale?: number;
  db?: string;
  realistic: boolean;
  showNotificationOnlyAnswers: boolean;
  withoutMessage?: number;
  withoutChatId?: number;
} {
  const out: ReturnType<typeof parse> = {
    noLimits: false,
    realistic: false,
    showNotificationOnlyAnswers: false,
  };
  const share = (flag: string, v: string) => {
    const n = Number(v);
    if (!(n >= 0 && n <= 1))
      throw new BotflowError('BOTFLOW_CLI_USAGE', `${flag} is a share from 0 to 1, like 0.2`);
    return n;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = () => {
      const v = args[++i];
      if (v === undefined) throw new BotflowError('BOTFLOW_CLI_USAGE', `${a} needs a value`);
      return v;
    };
    if (a === '--port') {
      out.port = Number(value());
      if (!Number.isInteger(out.port) || out.port < 0 || out.port > 65535)
        throw new BotflowError('BOTFLOW_CLI_USAGE', '--port must be 0..65535');
    } else if (a === '--host') out.host = value();
    else if (a === '--token') out.token = value();
    else if (a === '--bots') {
      out.bots = value()
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean);
      if (out.bots.length === 0)
        throw new BotflowError('BOTFLOW_CLI_USAGE', '--bots takes names, like Shop,Weather');
    } else if (a === '--no-limits') out.noLimits = true;
    else if (a === '--limits-scale') {
      out.scale = Number(value());
      if (!(out.scale > 0))
        throw new BotflowError('BOTFLOW_CLI_USAGE', '--limits-scale must be a positive number');
    } else if (a === '--db') out.db = value();
    else if (a === '--realistic') out.realistic = true;
    else if (a === '--show-notification-only-answers') out.showNotificationOnlyAnswers = true;
    else if (a === '--callbacks-without-message') out.withoutMessage = share(a, value());
    else if (a === '--callbacks-without-chat-id') out.withoutChatId = share(a, value());
    else
      throw new BotflowError(
        'BOTFLOW_CLI_USAGE',
        `unknown option ${a}: botflow sandbox --help lists the options`,
      );
  }
  return out;
}

export const command: Command = {
  options: [
    'port',
    'host',
    'token',
    'bots',
    'no-limits',
    'limits-scale',
    'db',
    'realistic',
    'show-notification-only-answers',
    'callbacks-without-message',
    'callbacks-without-chat-id',
  ],
  summary: 'run the local platform sandbox (Bot API + control API), print {"baseUrl","token"}',
  async run(args) {
    if (args.includes('--help') || args.includes('-h')) {
      process.stdout.write(HELP);
      return 0;
    }
    let opts: ReturnType<typeof parse>;
    try {
      opts = parse(args);
    } catch (err) {
      process.stderr.write(`botflow sandbox: ${(err as Error).message}\n\n${HELP}`);
      return 2;
    }
    const warning = exposureWarning(opts.host ?? '127.0.0.1');
    if (warning) process.stderr.write(`botflow sandbox: warning: ${warning}\n`);
    const sandbox = await startSandbox({
      ...(opts.port !== undefined ? { port: opts.port } : {}),
      ...(opts.host ? { host: opts.host } : {}),
      ...(opts.token ? { token: opts.token } : {}),
      ...(opts.bots ? { bots: opts.bots.map((name) => ({ name })) } : {}),
      ...(opts.db ? { dbPath: opts.db } : {}),
      ...(opts.realistic ? { timing: 'realistic' as const } : {}),
      ...(opts.showNotificationOnlyAnswers ? { showNotificationOnlyAnswers: true } : {}),
      ...(opts.withoutMessage !== undefined || opts.withoutChatId !== undefined
        ? {
            callbackVariants: {
              ...(opts.withoutMessage !== undefined ? { withoutMessage: opts.withoutMessage } : {}),
              ...(opts.withoutChatId !== undefined ? { withoutChatId: opts.withoutChatId } : {}),
            },
          }
        : {}),
      limits: opts.noLimits ? false : { global: 30, perChat: 2, scale: opts.scale ?? 1 },
    });
    const many = sandbox.bots().length > 1;
    if (!many)
      process.stdout.write(`${JSON.stringify({ baseUrl: sandbox.baseUrl, token: sandbox.token })}\n`);
    // One line per bot, the default bot's first, as the one line of a single-bot sandbox.
    for (const bot of many ? sandbox.app.sandbox.bots.all() : []) {
      const { id, name, username } = identityOf(bot);
      process.stdout.write(
        `${JSON.stringify({ baseUrl: sandbox.baseUrl, token: bot.token, bot: { id, name, username } })}\n`,
      );
    }
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await sandbox.close();
    return 0;
  },
};
