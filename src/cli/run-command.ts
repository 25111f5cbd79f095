/**
 * `botflow run`: reads the configuration, starts the bot (or, with no token, the local sandbox with its web
 * chat), prints where to look, and shuts down gracefully on SIGINT / SIGTERM. Bad configuration and failed
 * self-checks end with one plain message on stderr and a non-zero exit code, never a stack trace.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type RunningApp, startApp } from '../runtime/app.ts';
import type { AppParts, PlaygroundExtension } from '../runtime/app-parts.ts';
import { type Config, ConfigError, HelpRequested, loadConfig, secretsOf } from '../runtime/config.ts';
import { KEYS } from '../runtime/config-schema.ts';
import { createLogger, scrub } from '../runtime/logger.ts';
import { watchParent } from '../runtime/parent-watch.ts';
import { createRecorder, type Recorder } from '../runtime/recorder.ts';
import { handleSignals } from '../runtime/shutdown.ts';
import { StartupError } from '../runtime/startup-error.ts';
import { redactUrl } from '../store/postgres/database.ts';
import type { Command } from './command.ts';
import { runDeployment } from './run-deployment.ts';

/** The options as `[flag, what]`, printed in two columns as wide as the longest flag needs. */
const OPTIONS: [string, string][] = [
  ['--config <file>', 'configuration file (default: botflow.config.yaml/.yml/.json in this folder)'],
  ['--record <file>', 'record every accepted update and API result as JSON lines (botflow replay reads it)'],
  ...KEYS.filter((k) => k.flag).map((k): [string, string] => [
    `--${k.flag}${k.kind === 'boolean' ? '' : ' <value>'}`,
    `${k.path} (${k.env[k.env.length - 1]})`,
  ]),
  ['-h, --help', 'this text'],
];
const WIDTH = Math.max(...OPTIONS.map(([flag]) => flag.length)) + 2;

const USAGE = `usage: botflow run [options]

Runs the bot. With no token configured, runs the local sandbox, the flows of ./flows and the web chat.

options:
${OPTIONS.map(([flag, what]) => `  ${flag.padEnd(WIDTH)}${what}`).join('\n')}

Every setting, its environment variable and its default: docs/running.md`;

/** Where the run command writes and what it starts with; tests replace these. */
export interface RunEnvironment {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Human-readable lines (the address to open, problems): stderr, so stdout stays JSON log lines. */
  print(line: string): void;
  loadParts(): Promise<AppParts>;
}

/** The configuration from the arguments and the environment, or the exit code (usage printed: 0; bad: 2). */
function configOf(argv: string[], environment: RunEnvironment): Config | number {
  try {
    return loadConfig({ argv, env: environment.env, cwd: environment.cwd });
  } catch (error) {
    if (error instanceof HelpRequested) {
      environment.print(USAGE);
      return 0;
    }
    if (error instanceof ConfigError) {
      environment.print(`botflow: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

/** `--record <file>`'s recorder (none without the flag), or exit code 2 when its folder does not exist. */
function recorderOf(
  file: string | undefined,
  environment: RunEnvironment,
  config: Config,
): Recorder | undefined | number {
  if (!file) return undefined;
  const path = resolve(environment.cwd, file);
  if (!existsSync(dirname(path))) {
    environment.print(`botflow: --record ${file}: the folder ${dirname(path)} does not exist`);
    return 2;
  }
  const recorder = createRecorder(path, { secrets: secretsOf(config) });
  environment.print(`recording updates and API results to ${path}`);
  return recorder;
}

/** Where to chat with the bot, printed once Ctrl+C is handled: whoever reads it may stop the process at once. */
function announce(environment: RunEnvironment, app: RunningApp, config: Config): void {
  const { addresses } = app;
  if (addresses.webChat) {
    environment.print(
      `botflow is running with the local sandbox: open ${addresses.webChat} to chat with your flows (${app.flowCount} loaded from ${config.flows.dir}). Ctrl+C stops.`,
    );
    // The sandbox's own dev token (loopback only, new at each start): mini-app initData is signed with it.
    if (app.sandboxToken)
      environment.print(
        `sandbox bot token (local, new at each start; mini-apps: docs/mini-apps.md): ${app.sandboxToken}`,
      );
    if (addresses.events) environment.print(`external events: POST ${addresses.events}`);
  } else {
    environment.print(
      `botflow is running as ${app.bot.name} (${config.mode}${addresses.webhook ? ` on ${addresses.webhook}` : ''}), ${app.flowCount} flow(s). Ctrl+C stops.`,
    );
    if (addresses.events) environment.print(`external events: POST ${addresses.events}`);
  }
}

/**
 * Runs until a signal, the parent npm going, an unexpected error or the app's failure stops it, then
 * shuts down in order.
 */
async function runUntilStopped(
  app: RunningApp,
  config: Config,
  logger: ReturnType<typeof createLogger>,
  environment: RunEnvironment,
): Promise<{ clean: boolean; failure: Error | undefined }> {
  let failure: Error | undefined;
  const result = await new Promise<{ clean: boolean }>((resolve) => {
    let unwatch = () => {};
    const stop = async (reason: string) => {
      unwatch(); // a shutdown under way: npm exiting meanwhile is no second signal
      const outcome = await app.close(reason);
      dispose();
      resolve(outcome);
    };
    const signals = handleSignals({ shutdown: stop, hardExitMs: config.shutdown.timeoutMs, logger });
    // Started by npm: its shell dies of the SIGTERM npm passes on and never hands it to us (parent-watch.ts).
    unwatch = watchParent(environment.env, (parent) => {
      logger.warn(
        { parent },
        'started by npm, and its parent process is gone (npm passes SIGTERM to its shell, which does not pass it on): stopping as on SIGTERM',
      );
      process.kill(process.pid, 'SIGTERM');
    });
    announce(environment, app, config);
    const fail = (error: Error, what: string) => {
      if (failure) return;
      failure = error;
      logger.error({ err: error }, `${what}: ${error.message}; stopping`);
      environment.print(`botflow: ${error.message}`);
      setTimeout(() => process.exit(1), config.shutdown.timeoutMs).unref();
      void stop('failure');
    };
    // A bug somewhere must not kill the process mid-transaction: log it and shut down in order instead.
    // (Plain Error: only wraps a thrown non-Error.)
    const onUnexpected = (error: unknown) =>
      fail(error instanceof Error ? error : new Error(String(error)), 'unexpected error');
    process.on('uncaughtException', onUnexpected);
    process.on('unhandledRejection', onUnexpected);
    const dispose = () => {
      unwatch();
      signals();
      process.off('uncaughtException', onUnexpected);
      process.off('unhandledRejection', onUnexpected);
    };
    void app.failed.then((error) => fail(error, 'cannot go on'));
  });
  return { ...result, failure };
}

/** Runs `botflow run` with `args`; resolves with the exit code after shutdown. */
export async function runBot(args: string[], given: RunEnvironment): Promise<number> {
  // Printed lines are scrubbed like log lines: secrets known so far, and credentials in any URL.
  const secrets: string[] = [];
  const environment: RunEnvironment = { ...given, print: (line) => given.print(scrub(line, secrets)) };
  const record = takeRecordFlag(args);
  if ('error' in record) {
    environment.print(`botflow: ${record.error}`);
    return 2;
  }
  const config = configOf(record.rest, environment);
  if (typeof config === 'number') return config;
  secrets.push(...secretsOf(config));
  const logger = createLogger({ level: config.log.level, secrets });
  for (const warning of config.warnings) logger.warn(warning);
  if (config.bots) {
    if (record.file) {
      environment.print('botflow: --record records one bot: run that bot alone to record it');
      return 2;
    }
    return runDeployment(config, logger, environment);
  }
  const recorder = recorderOf(record.file, environment, config);
  if (typeof recorder === 'number') return recorder;

  let app: RunningApp;
  try {
    app = await startApp(config, {
      logger,
      parts: await environment.loadParts(),
      ...(recorder ? { recorder } : {}),
    });
  } catch (error) {
    if (!(error instanceof StartupError)) logger.error({ err: error }, 'botflow could not start');
    environment.print(`botflow: ${error instanceof Error ? error.message : String(error)}`);
    await flush(logger);
    return error instanceof StartupError ? error.exitCode : 1;
  }

  const { addresses } = app;
  logger.info(
    {
      addresses,
      flows: app.flowCount,
      mode: config.mode,
      db: config.database.url ? redactUrl(config.database.url.reveal()) : config.database.path,
    },
    'botflow is running',
  );
  const result = await runUntilStopped(app, config, logger, environment);
  await flush(logger);
  return result.failure || !result.clean ? 1 : 0;
}

/** Takes `--record <file>` (or `--record=<file>`) out of the arguments; the rest is configuration. */
function takeRecordFlag(args: string[]): { rest: string[]; file?: string } | { error: string } {
  const rest: string[] = [];
  let file: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--record' || arg.startsWith('--record=')) {
      file = arg === '--record' ? args[++i] : arg.slice('--record='.length);
      if (!file || file.startsWith('--')) return { error: '--record needs a file: --record session.jsonl' };
    } else rest.push(arg);
  }
  return file ? { rest, file } : { rest };
}

function flush(logger: { flush(cb?: (err?: Error) => void): void }): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}

/**
 * A playground extension whose modules are imported only once the playground is served (the embedded
 * sandbox registers its routes): a bot on a platform never loads them.
 */
function whenServed(load: () => Promise<PlaygroundExtension>): PlaygroundExtension {
  let extension: Promise<PlaygroundExtension> | undefined;
  const loaded = () => {
    extension ??= load();
    return extension;
  };
  return {
    plugin: async (app, options) => (await loaded()).plugin(app, options),
    attach: (engine, flows, flowsDir) => void loaded().then((e) => e.attach(engine, flows, flowsDir)),
    flowsChanged: (flows) => void loaded().then((e) => e.flowsChanged?.(flows)),
  };
}

/** The `run` subcommand. */
export const command: Command = {
  options: ['config', 'record', ...KEYS.flatMap((k) => (k.flag ? [k.flag] : []))],
  summary: 'run the bot (no token: the local sandbox, the example flows and the web chat)',
  run: (args) =>
    runBot(args, {
      env: process.env,
      cwd: process.cwd(),
      print: (line) => process.stderr.write(`${line}\n`),
      loadParts: async () => {
        const { defaultParts } = await import('../runtime/default-parts.ts');
        return defaultParts({
          playground: [
            // The playground's "save as test" lives with the transcript harness (src/testing).
            whenServed(async () => (await import('../testing/save-chat.ts')).saveChatExtension()),
            // The playground's flow editor and step form (src/lsp: the checker and the language service).
            whenServed(async () => (await import('../lsp/editor-routes.ts')).editorExtension()),
          ],
        });
      },
    }),
};
