/**
 * The whole bot as one process: configuration in, running parts out. `startApp` starts them in dependency
 * order (sandbox in the embedded default, API client, self-check, database, flows, scheduler, engine,
 * intake) and returns `close()`, which stops them in the reverse order under one deadline: intake first so
 * nothing new is accepted, then the engine finishes its current steps, sends in flight get a deadline, and
 * the database closes last. Anything accepted but not processed stays pending in the inbox for the next start.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { BotApi } from '../api/client.ts';
import { Scheduler } from '../api/scheduler/scheduler.ts';
import { openDatabase } from '../store/database.ts';
import type { AppParts, EngineHandle, IntakeHandle, SandboxHandle } from './app-parts.ts';
import { buttonSigningKey, type Config } from './config.ts';
import { sandboxStatePath } from './sandbox-state.ts';
import { type BotIdentity, selfCheck } from './self-check.ts';
import { runShutdown, type ShutdownStep, type StepOutcome } from './shutdown.ts';
import { describeListenError, StartupError } from './startup-error.ts';

/** Where the running parts can be reached. */
export interface AppAddresses {
  /** The Bot API in use (the sandbox's in the embedded default). */
  api: string;
  /** The sandbox, in the embedded default. */
  sandbox?: string;
  /** The page to open to chat with the flows, in the embedded default. */
  webChat?: string;
  /** Where the webhook receiver listens, in webhook mode. */
  webhook?: string;
}

/** A started bot. */
export interface RunningApp {
  addresses: AppAddresses;
  bot: BotIdentity;
  /** Flow files loaded at start. */
  flowCount: number;
  /** Stops everything (idempotent); `clean` is false when a step ran out of time. */
  close(reason?: string): Promise<{ clean: boolean; steps: StepOutcome[] }>;
}

/** What `startApp` needs besides the configuration. */
export interface StartAppOptions {
  logger: Logger;
  parts: AppParts;
}

/** Starts every part the configuration asks for. Throws `StartupError` (after closing what started) on failure. */
export async function startApp(config: Config, options: StartAppOptions): Promise<RunningApp> {
  const { logger, parts } = options;
  const cleanup: ShutdownStep[] = [];
  let sandbox: SandboxHandle | undefined;
  let api: BotApi | undefined;
  let db: Database.Database | undefined;
  let scheduler: Scheduler | undefined;
  let engine: EngineHandle | undefined;
  let intake: IntakeHandle | undefined;
  let watcher: { close(): void } | undefined;

  const shutdownSteps = (): ShutdownStep[] => {
    const sendDeadline = (deadline: number) =>
      Math.min(deadline - 500, Date.now() + config.shutdown.sendDeadlineMs);
    return [
      { name: 'stop intake', run: () => intake?.stop() },
      { name: 'stop watching flows', run: () => watcher?.close() },
      {
        name: 'finish current steps',
        run: (deadline) => engine?.stop({ deadlineMs: sendDeadline(deadline) }),
      },
      {
        name: 'drain sends',
        run: async (deadline) => {
          try {
            await scheduler?.drain(Math.max(0, sendDeadline(deadline) - Date.now()));
          } finally {
            scheduler?.close();
          }
        },
      },
      { name: 'close API client', run: () => api?.close() },
      { name: 'close database', always: true, run: () => db?.open && db.close() },
      { name: 'stop sandbox', always: true, run: () => sandbox?.close() },
    ];
  };

  try {
    let token = config.token?.reveal();
    let baseUrl = config.baseUrl;
    if (config.embedded) {
      const sandboxState = sandboxStatePath(config.database.path);
      if (sandboxState) mkdirSync(dirname(sandboxState), { recursive: true });
      try {
        sandbox = await parts.startSandbox({
          host: config.sandbox.host,
          port: config.sandbox.port,
          ...(sandboxState ? { dbPath: sandboxState } : {}),
          logger: logger.child({ component: 'sandbox' }),
        });
      } catch (error) {
        throw (
          describeListenError(
            error,
            `the sandbox cannot listen on ${config.sandbox.host}:${config.sandbox.port}`,
            '--port or BOTFLOW_PORT',
          ) ?? error
        );
      }
      token = sandbox.token;
      baseUrl = sandbox.baseUrl;
    }
    if (!token || !baseUrl) throw new StartupError('no token and no sandbox: this is a bug in botflow');

    api = new BotApi({
      token,
      baseUrl,
      caFiles: config.caFiles,
      timeoutMs: config.limits.requestTimeoutMs,
      logger: logger.child({ component: 'api' }),
    });
    const check = await selfCheck(api, { baseUrl, caFiles: config.caFiles, timeoutMs: 10_000 });
    if (!check.ok) throw new StartupError(`self-check failed: ${check.message}`, 3);
    logger.info({ bot: check.bot }, check.message);

    if (config.database.path !== ':memory:') mkdirSync(dirname(config.database.path), { recursive: true });
    db = openDatabase({
      path: config.database.path,
      synchronous: config.database.synchronous,
      logger: logger.child({ component: 'store' }),
    });

    const flowLogger = logger.child({ component: 'flows' });
    const loaded = await parts.loadFlows(config.flows.dir, flowLogger);
    if (loaded.problems.length > 0) {
      throw new StartupError(
        `the flows in ${config.flows.dir} have ${loaded.problems.length} problem(s):\n${loaded.problems.map((p) => `  ${p}`).join('\n')}\nFix them (botflow check ${config.flows.dir} lists them) and start again.`,
        4,
      );
    }

    scheduler = new Scheduler({
      api,
      limits: { global: config.limits.requestsPerSecond, perChat: config.limits.perChatPerSecond },
      logger: logger.child({ component: 'scheduler' }),
    });
    const engineHandle = await parts.createEngine({
      db,
      api,
      scheduler,
      flows: loaded.flows,
      keyStrategy: config.conversationKey,
      buttonSecret: buttonSigningKey(config, token),
      logger: logger.child({ component: 'engine' }),
    });
    engine = engineHandle;
    await engineHandle.start();

    if (config.flows.watch && parts.watchFlows && engineHandle.setFlows) {
      watcher = parts.watchFlows(
        config.flows.dir,
        (next) => {
          if (next.problems.length > 0) {
            flowLogger.warn(
              { problems: next.problems },
              'flows changed but have problems: keeping the previous version',
            );
            return;
          }
          engineHandle.setFlows?.(next.flows);
          flowLogger.info(
            { count: next.flows.length },
            'flows reloaded: new sessions start on the new version',
          );
        },
        flowLogger,
      );
    }

    const intakeLogger = logger.child({ component: 'intake' });
    const common = {
      api,
      db,
      keyStrategy: config.conversationKey,
      onAccepted: () => {},
      logger: intakeLogger,
    };
    if (config.mode === 'webhook') {
      const { host, port, path, url, secret, updateTypes } = config.webhook;
      try {
        intake = await parts.startWebhook({
          ...common,
          host,
          port,
          path,
          url: url!,
          secret: secret!.reveal(),
          ...(updateTypes ? { types: updateTypes } : {}),
        });
      } catch (error) {
        throw (
          describeListenError(
            error,
            `the webhook receiver cannot listen on ${host}:${port}`,
            'webhook.port or BOTFLOW_WEBHOOK_PORT',
          ) ?? error
        );
      }
    } else {
      intake = await parts.startPolling({
        ...common,
        timeoutSeconds: config.polling.timeoutSeconds,
        limit: config.polling.limit,
        ...(config.polling.updateTypes ? { types: config.polling.updateTypes } : {}),
      });
    }

    let closing: Promise<{ clean: boolean; steps: StepOutcome[] }> | undefined;
    return {
      addresses: {
        api: baseUrl,
        ...(sandbox
          ? { sandbox: sandbox.baseUrl, webChat: sandbox.webChatUrl ?? `${sandbox.baseUrl}/` }
          : {}),
        ...(intake.address ? { webhook: intake.address } : {}),
      },
      bot: check.bot,
      flowCount: loaded.flows.length,
      close(reason = 'close') {
        closing ??= (async () => {
          logger.info({ reason }, 'stopping: no new updates are accepted; finishing the current steps');
          const deadline = Date.now() + config.shutdown.timeoutMs - 1000;
          const result = await runShutdown(shutdownSteps(), { deadline, logger });
          logger.info(
            { clean: result.clean },
            result.clean ? 'stopped' : 'stopped; some steps ran out of time',
          );
          return result;
        })();
        return closing;
      },
    };
  } catch (error) {
    cleanup.push(...shutdownSteps());
    await runShutdown(cleanup, { deadline: Date.now() + 5000, logger });
    throw error;
  }
}
