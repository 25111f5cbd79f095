/**
 * A started bot as `startApp` hands it back: where its parts can be reached, what it runs, and `close`
 * (once, however often it is called), which stops what started (app-shutdown.ts) before the deadline.
 */
import type { FastifyPluginCallback } from 'fastify';
import type { Engine } from '../engine/engine.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import type { AppAddresses, RunningApp, StartAppOptions } from './app-parts.ts';
import { type Started, shutdownSteps } from './app-shutdown.ts';
import type { Config } from './config.ts';
import type { BotIdentity } from './self-check.ts';
import { runShutdown, type StepOutcome } from './shutdown.ts';

/** What the app runs, besides the parts in `started`. */
export interface AppRun {
  /** The Bot API in use. */
  baseUrl: string;
  bot: BotIdentity;
  flowCount: number;
  engine: Engine<boolean>;
  /** The events endpoint, when `events` is configured. */
  endpoint: FastifyPluginCallback | undefined;
  polling: boolean;
  failed: Promise<Error>;
}

/** The running app over what `started` holds now. */
export function runningApp(
  config: Config,
  options: StartAppOptions,
  started: Started,
  run: AppRun,
): RunningApp {
  const { sandbox, intake } = started;
  const { endpoint, polling } = run;
  return {
    addresses: appAddresses(config, started, run),
    bot: run.bot,
    flowCount: run.flowCount,
    ...(sandbox?.shownToken ? { sandboxToken: sandbox.shownToken } : {}),
    engine: run.engine,
    events: run.engine.events,
    ...(endpoint && options.mountWebhook && !polling ? { eventsEndpoint: endpoint } : {}),
    failed: run.failed,
    ...(intake?.plugin ? { webhook: intake.plugin } : {}),
    close: closer(config, options, started),
  };
}

function appAddresses(config: Config, started: Started, { baseUrl, endpoint }: AppRun): AppAddresses {
  const { sandbox, intake, health, eventsServer } = started;
  return {
    api: baseUrl,
    ...(sandbox ? { sandbox: sandbox.baseUrl, webChat: sandbox.webChatUrl ?? `${sandbox.baseUrl}/` } : {}),
    ...(intake?.address ? { webhook: intake.address } : {}),
    ...(health ? { health: health.address } : {}),
    ...(eventsServer
      ? { events: eventsServer.address }
      : endpoint && intake?.address
        ? { events: new URL(config.events.path, intake.address).toString() }
        : {}),
  };
}

/** `RunningApp.close`: the shutdown, run once. */
function closer(config: Config, options: StartAppOptions, started: Started): RunningApp['close'] {
  const { logger } = options;
  let closing: Promise<{ clean: boolean; steps: StepOutcome[] }> | undefined;
  return (reason = 'close') => {
    closing ??= (async () => {
      logger.info(
        { reason },
        started.database?.shared
          ? 'stopping: no new updates are accepted; handing over to the other processes'
          : 'stopping: no new updates are accepted; finishing the current steps',
      );
      const deadline = wallNow() + config.shutdown.timeoutMs - 1000;
      const result = await runShutdown(shutdownSteps(config, options, started), { deadline, logger });
      logger.info({ clean: result.clean }, result.clean ? 'stopped' : 'stopped; some steps ran out of time');
      return result;
    })();
    return closing;
  };
}
