/**
 * Steps both compositions take (`startApp` on SQLite, `startClusterApp` on PostgreSQL): the embedded
 * sandbox and the self-check, loading the flows (refusing a start with problems), and hot-reloading them.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { BotApi } from '../client/client.ts';
import { type SharedBudget, withinBudget } from '../client/scheduler/shared-budget.ts';
import type { Engine } from '../engine/engine.ts';
import type { AppParts, LoadedFlows, SandboxHandle, StartAppOptions } from './app-parts.ts';
import type { Config } from './config.ts';
import { sandboxStatePath } from './sandbox-state.ts';
import { type BotIdentity, selfCheck } from './self-check.ts';
import { describeListenError, StartupError } from './startup-error.ts';

/** The local platform of the embedded default, its state kept beside the database. */
export async function startEmbeddedSandbox(config: Config, parts: AppParts, logger: Logger) {
  const sandboxState = sandboxStatePath(config.database.path);
  if (sandboxState) mkdirSync(dirname(sandboxState), { recursive: true });
  try {
    return await parts.startSandbox({
      host: config.sandbox.host,
      port: config.sandbox.port,
      ...(sandboxState ? { dbPath: sandboxState } : {}),
      flowsDir: config.flows.dir,
      logger: logger.child({ component: 'sandbox' }),
    });
  } catch (error) {
    const where = `the sandbox cannot listen on ${config.sandbox.host}:${config.sandbox.port}`;
    throw describeListenError(error, where, '--port or BOTFLOW_PORT') ?? error;
  }
}

/**
 * The platform to talk to: the embedded sandbox (started here) or the configured one, and a client that
 * passed the self-check (`GET /me`; exit code 3 when it fails). `started` hears each part as soon as it
 * exists, so that a failure further on still closes it. With `budget` (several processes), the self-check
 * waits for a start in the bot's shared budget.
 */
export async function connectToPlatform(
  config: Config,
  parts: AppParts,
  options: Pick<StartAppOptions, 'logger' | 'recorder'>,
  started: { sandbox(sandbox: SandboxHandle): void; api(api: BotApi): void },
  budget?: SharedBudget,
): Promise<{ api: BotApi; baseUrl: string; bot: BotIdentity; sandbox?: SandboxHandle }> {
  const { logger } = options;
  let token = config.token?.reveal();
  let baseUrl = config.baseUrl;
  let sandbox: SandboxHandle | undefined;
  if (config.embedded) {
    sandbox = await startEmbeddedSandbox(config, parts, logger);
    started.sandbox(sandbox);
    token = sandbox.token;
    baseUrl = sandbox.baseUrl;
    logger.addSecret?.(token);
    options.recorder?.addSecret(token);
  }
  if (!token || !baseUrl) throw new StartupError('no token and no sandbox: this is a bug in botflow');
  const api = new BotApi({
    token,
    baseUrl,
    caFiles: config.caFiles,
    timeoutMs: config.limits.requestTimeoutMs,
    logger,
  });
  started.api(api);
  // Among several processes the self-check takes a start in the bot's shared budget like any other call.
  const me = {
    getMyInfo: (o?: { timeoutMs?: number }) => withinBudget(budget, 30_000, () => api.getMyInfo(o)),
  };
  const check = await selfCheck(me, { baseUrl, caFiles: config.caFiles, timeoutMs: 10_000 });
  if (!check.ok) throw new StartupError(`self-check failed: ${check.message}`, 3);
  logger.info({ bot: check.bot }, check.message);
  return { api, baseUrl, bot: check.bot, ...(sandbox ? { sandbox } : {}) };
}

/** The flows of `flows.dir`; a flow with problems refuses the start (exit code 4) with every problem listed. */
export async function loadFlowsOrRefuse(
  config: Config,
  parts: AppParts,
  flowLogger: Logger,
): Promise<LoadedFlows> {
  const loaded = await parts.loadFlows(config.flows.dir, flowLogger);
  if (loaded.problems.length > 0) {
    throw new StartupError(
      `the flows in ${config.flows.dir} have ${loaded.problems.length} problem(s):\n` +
        loaded.problems.map((p) => `  ${p}`).join('\n') +
        `\nFix them (botflow check ${config.flows.dir} lists them) and start again.`,
      4,
    );
  }
  if (loaded.flows.length === 0)
    flowLogger.warn({ dir: config.flows.dir }, 'no flows found: the bot will not answer');
  return loaded;
}

/** A saved flow file: new sessions start on the new version, unless it has problems (then kept as it was). */
export function reloadFlows(
  engine: Pick<Engine, 'flows'>,
  next: LoadedFlows,
  flowLogger: Logger,
  sandbox?: SandboxHandle,
): void {
  sandbox?.flowsChanged?.(next);
  if (next.problems.length > 0) {
    flowLogger.warn(
      { problems: next.problems },
      'flows changed but have problems: keeping the previous version',
    );
    return;
  }
  for (const flow of next.flows) engine.flows.add(flow);
  flowLogger.info({ count: next.flows.length }, 'flows reloaded: new sessions start on the new version');
}
