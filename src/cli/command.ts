/** What every `botflow` subcommand is: the contract between `src/cli.ts` and the commands beside this file. */
import { type Config, ConfigError } from '../runtime/config.ts';
import { loadBotConfig } from '../runtime/config-select.ts';

/** A subcommand: `run` gets the arguments after its name and returns the exit code. */
export interface Command {
  summary: string;
  run(args: string[]): Promise<number>;
  /**
   * Its long options without `--` (`help` is implied). When given, `main` refuses any other `--option`
   * with a "did you mean" before the command runs.
   */
  options?: readonly string[];
}

/** The options that choose the database and the configuration file, as `loadConfig`'s argv. */
export function databaseArgv(values: { db?: string; 'database-url'?: string; config?: string }): string[] {
  return [
    ...(values.db ? ['--db', values.db] : []),
    ...(values['database-url'] ? ['--database-url', values['database-url']] : []),
    ...(values.config ? ['--config', values.config] : []),
  ];
}

/**
 * `--bot <name>` and `--config <file>` taken out of `args` (docs/bots.md): that bot's configuration from
 * the configuration's `bots:` (its database, flows folder, token source). Undefined without `--bot` (a
 * `--config` is then left in `args`); null when it is not a bot of the configuration (the reason printed,
 * as `<command>: …`).
 */
export function takeBotConfig(args: string[], command: string): Config | undefined | null {
  const config = takeOption(args, '--config');
  const bot = takeOption(args, '--bot');
  if (bot === undefined) {
    if (config !== undefined) args.push('--config', config);
    return undefined;
  }
  try {
    return loadBotConfig({ argv: config ? ['--config', config] : [] }, bot, command);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${command}: ${error.message}`);
    return null;
  }
}

/** `takeBotConfig`'s flows folder: what `check`, `test`, `graph`, `storyboard` and `schema` take from `--bot`. */
export function takeBotFlowsDir(args: string[], command: string): string | undefined | null {
  const config = takeBotConfig(args, command);
  return config ? config.flows.dir : config;
}

/** The value of `--name <value>` (or `--name=value`), taken out of `args`. */
function takeOption(args: string[], name: string): string | undefined {
  const at = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (at < 0) return undefined;
  if (args[at] !== name) return args.splice(at, 1)[0]!.slice(name.length + 1);
  return args.splice(at, 2)[1] ?? '';
}
