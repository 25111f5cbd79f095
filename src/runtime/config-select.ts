/**
 * The configuration a command works on (`--bot <name>`, docs/bots.md): the bot named, the only bot of
 * `bots:`, or the configuration itself without `bots:`. Several bots and no `--bot` is a `ConfigError`
 * listing their names.
 */
import { BotflowError } from '../errors/index.ts';
import { type Config, ConfigError, type LoadConfigOptions, loadConfig } from './config.ts';
import { botNames, selectBot } from './config-bots.ts';

/** `loadConfig`, then the bot `bot` of it (see above); `command` words the message (`botflow stats`). */
export function loadBotConfig(options: LoadConfigOptions, bot: string | undefined, command: string): Config {
  return loadBotConfigFrom(loadConfig(options), bot, command);
}

/** Every bot's configuration (`botflow migrate` without `--bot`), or the configuration alone without `bots:`. */
export function everyBotConfig(
  options: LoadConfigOptions,
  bot: string | undefined,
  command: string,
): Config[] {
  const config = loadConfig(options);
  if (bot !== undefined || !config.bots) return [loadBotConfigFrom(config, bot, command)];
  return botNames(config).map((name) => selectBot(config, name, command));
}

function loadBotConfigFrom(config: Config, bot: string | undefined, command: string): Config {
  try {
    return selectBot(config, bot, command);
  } catch (error) {
    if (!(error instanceof BotflowError)) throw error;
    throw new ConfigError([{ key: 'bot', where: '--bot', message: error.message }]);
  }
}
