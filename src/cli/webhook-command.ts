/**
 * `botflow webhook set|list|delete`: manage the bot's webhook subscriptions on the platform. The token,
 * base URL and CA files come from the same configuration as `botflow run` (file, BOTFLOW_* variables).
 */
import { parseArgs } from 'node:util';
import { BotApi } from '../client/client.ts';
import { UPDATE_TYPES } from '../client/schemas/index.ts';
import { isBotflowError } from '../errors/index.ts';
import { deleteSubscription, listSubscriptions, setSubscription } from '../intake/subscriptions.ts';
import { SECRET_PATTERN } from '../intake/webhook.ts';
import { type Config, ConfigError, loadConfig } from '../runtime/config.ts';
import { botConfigFor, botNames } from '../runtime/config-bots.ts';
import type { Command } from './command.ts';

const HELP = `usage: botflow webhook set | list | delete
  botflow webhook set [url] [--secret S] [--types a,b,…]   subscribe url (default: webhook.url of the configuration)
  botflow webhook list                                    show the bot's subscriptions
  botflow webhook delete <url>                            remove a subscription

options:
  --secret S       sent back in X-Svc-Bot-Api-Secret with every delivery (default: webhook.secret, BOTFLOW_WEBHOOK_SECRET)
  --types a,b      update types to deliver (default: webhook.updateTypes, else all)
  --config <file>  configuration file; --base-url <url> overrides the API address
  --bot <name>     that bot of bots: (docs/bots.md): its token, its webhook route (webhook.url/webhook/<alias>)
                   and its secret

The token comes from BOTFLOW_TOKEN or the configuration file (with --bot, from that bot's env or file). Long polling does not work while a
subscription exists: \`botflow webhook delete <url>\` before \`botflow run --mode polling\`.`;

function fail(message: string): number {
  console.error(`botflow webhook: ${message}`);
  return 2;
}

export const command: Command = {
  options: ['secret', 'types', 'config', 'base-url', 'bot'],
  summary: 'manage webhook subscriptions: set <url>, list, delete <url>',
  async run(args) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      return fail(`${(error as Error).message}\n\n${HELP}`);
    }
    const { values, positionals } = parsed;
    const [action, url, ...extra] = positionals;
    if (values.help || !action) {
      console.log(HELP);
      return action || values.help ? 0 : 2;
    }
    if (extra.length) return fail(`unexpected arguments: ${extra.join(' ')}`);

    const config = configOf(values);
    if (typeof config === 'string') return fail(config);
    if (!config.token || !config.baseUrl) {
      return fail('no token configured: set BOTFLOW_TOKEN (or `token` in botflow.config.yaml)');
    }
    const api = new BotApi({
      token: config.token.reveal(),
      baseUrl: config.baseUrl,
      caFiles: config.caFiles,
    });
    try {
      switch (action) {
        case 'list': {
          const subscriptions = await listSubscriptions(api);
          if (subscriptions.length === 0) console.log('no webhook subscriptions (long polling is available)');
          for (const s of subscriptions) {
            const types = s.update_types?.length ? s.update_types.join(',') : 'all types';
            const since = s.time ? ` since ${new Date(s.time).toISOString()}` : '';
            console.log(`${s.url}  ${types}${since}`);
          }
          return 0;
        }
        case 'set': {
          const target = url ?? config.webhook.url;
          if (!target)
            return fail('set needs a URL (or webhook.url / BOTFLOW_WEBHOOK_URL in the configuration)');
          const secret = values.secret ?? config.webhook.secret?.reveal();
          if (secret !== undefined && !SECRET_PATTERN.test(secret)) {
            return fail('--secret must be 5..256 characters of A-Z, a-z, 0-9, "_" and "-"');
          }
          const types = values.types?.split(',').filter(Boolean) ?? config.webhook.updateTypes;
          const unknown = (types ?? []).filter((t) => !(UPDATE_TYPES as string[]).includes(t));
          if (unknown.length) {
            return fail(`unknown update types: ${unknown.join(', ')} (known: ${UPDATE_TYPES.join(', ')})`);
          }
          await setSubscription(api, {
            url: target,
            ...(secret ? { secret } : {}),
            ...(types ? { types } : {}),
          });
          console.log(`subscribed ${target} (${types?.length ? types.join(',') : 'all types'})`);
          if (!secret)
            console.log('warning: no secret: anyone who learns the URL can post updates to the bot');
          return 0;
        }
        case 'delete': {
          if (!url) return fail('delete needs the subscribed URL (see `botflow webhook list`)');
          await deleteSubscription(api, url);
          console.log(`removed ${url}`);
          return 0;
        }
        default:
          return fail(`unknown action "${action}"\n\n${HELP}`);
      }
    } catch (error) {
      console.error(`botflow webhook ${action}: ${(error as Error).message}`);
      return 1;
    } finally {
      await api.close();
    }
  },
};

/**
 * The configuration, or with `--bot` that bot's (its token from its `env` or `file` source, its webhook
 * route and secret); a message when it cannot be read.
 */
function configOf(values: { config?: string; 'base-url'?: string; bot?: string }): Config | string {
  try {
    const config = loadConfig({
      argv: [
        ...(values.config ? ['--config', values.config] : []),
        ...(values['base-url'] ? ['--base-url', values['base-url']] : []),
      ],
    });
    if (values.bot === undefined && config.bots && config.bots.length > 1)
      return `the configuration serves ${config.bots.length} bots: say which with botflow webhook --bot <name> (${botNames(config).join(', ')})`;
    if (values.bot === undefined && !config.bots) return config;
    const bot = botConfigFor(config, values.bot ?? botNames(config)[0]!);
    return values['base-url'] ? { ...bot, baseUrl: config.baseUrl } : bot;
  } catch (error) {
    if (error instanceof ConfigError || isBotflowError(error)) return error.message;
    throw error;
  }
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      secret: { type: 'string' },
      types: { type: 'string' },
      config: { type: 'string' },
      bot: { type: 'string' },
      'base-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
