/**
 * `botflow run` with a `bots:` section: the deployment (runtime/deployment.ts) instead of one app. Every
 * bot that can start serves; one that cannot is reported alone (stderr and its log lines, labelled `bot:
 * name`) and the others go on. SIGINT / SIGTERM stop every bot in order.
 */
import type { AppParts, SandboxHandle } from '../runtime/app-parts.ts';
import type { Config } from '../runtime/config.ts';
import { botNames, sandboxTokenVariable } from '../runtime/config-bots.ts';
import { startDeployment } from '../runtime/deployment.ts';
import type { ScrubbingLogger } from '../runtime/logger.ts';
import { handleSignals } from '../runtime/shutdown.ts';
import { StartupError } from '../runtime/startup-error.ts';

/** What the deployment run needs of `botflow run`'s environment. */
export interface DeploymentRunEnvironment {
  env: NodeJS.ProcessEnv;
  print(line: string): void;
  loadParts(): Promise<AppParts>;
}

/**
 * The embedded default with several bots (no token anywhere, `Config.embedded`): one sandbox hosting every
 * bot of `bots:`, each its own token, and the playground (its bot picker) to talk to each.
 */
async function embeddedSandbox(
  config: Config,
  parts: AppParts,
  logger: ScrubbingLogger,
): Promise<SandboxHandle> {
  try {
    return await parts.startSandbox({
      host: config.sandbox.host,
      port: config.sandbox.port,
      logger: logger.child({ component: 'sandbox' }),
      bots: botNames(config),
    });
  } catch (error) {
    const where = `the sandbox cannot listen on ${config.sandbox.host}:${config.sandbox.port}`;
    throw new StartupError(`${where}: ${(error as Error).message}`, 1);
  }
}

/** Each tokenless bot's sandbox token, in the variable its `token: { env }` names (config-bots.ts). */
function sandboxTokens(config: Config, sandbox: SandboxHandle, logger: ScrubbingLogger): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of botNames(config)) {
    const token = sandbox.tokenOf?.(name);
    if (token === undefined) continue;
    logger.addSecret?.(token);
    env[sandboxTokenVariable(name)] = token;
  }
  return env;
}

/** Runs every bot of `config.bots` until a signal; resolves with the exit code. */
export async function runDeployment(
  config: Config,
  logger: ScrubbingLogger,
  environment: DeploymentRunEnvironment,
): Promise<number> {
  let deployment: Awaited<ReturnType<typeof startDeployment>>;
  let sandbox: SandboxHandle | undefined;
  try {
    const parts = await environment.loadParts();
    let env = environment.env;
    if (config.embedded) {
      sandbox = await embeddedSandbox(config, parts, logger);
      env = { ...env, ...sandboxTokens(config, sandbox, logger) };
      config = { ...config, baseUrl: sandbox.baseUrl };
    }
    deployment = await startDeployment(config, { logger, parts, env });
  } catch (error) {
    await sandbox?.close();
    environment.print(`botflow: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof StartupError ? error.exitCode : 1;
  }
  const bots = deployment.bots();
  // A cold webhook bot (`idle`) serves: a delivery or its next timer starts it (docs/bots.md).
  const serving = (status: string) => status === 'running' || status === 'idle';
  const running = bots.filter((bot) => serving(bot.status));
  environment.print(
    `botflow is running ${running.length} of ${bots.length} bot(s)${deployment.address ? ` (webhooks and health on ${deployment.address})` : ''}. Ctrl+C stops.`,
  );
  if (sandbox?.webChatUrl)
    environment.print(`  chat with them (pick a bot at the top of the page): ${sandbox.webChatUrl}`);
  for (const bot of bots) {
    if (!serving(bot.status))
      environment.print(`  ${bot.name}: ${bot.status}${bot.reason ? ` (${bot.reason.split('\n')[0]})` : ''}`);
  }
  logger.info({ bots }, 'botflow deployment is running');
  let failure: Error | undefined;
  await new Promise<void>((resolve) => {
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= deployment.stop().then(async () => {
        await sandbox?.close();
        dispose();
        resolve();
      });
      return stopping;
    };
    // A bug somewhere must not kill the process mid-transaction: log it and stop every bot in order.
    const onUnexpected = (error: unknown) => {
      failure ??= error instanceof Error ? error : new Error(String(error));
      logger.error({ err: failure }, `unexpected error: ${failure.message}; stopping`);
      setTimeout(() => process.exit(1), config.shutdown.timeoutMs).unref();
      void stop();
    };
    const signals = handleSignals({ hardExitMs: config.shutdown.timeoutMs, logger, shutdown: stop });
    process.on('uncaughtException', onUnexpected);
    process.on('unhandledRejection', onUnexpected);
    const dispose = () => {
      signals();
      process.off('uncaughtException', onUnexpected);
      process.off('unhandledRejection', onUnexpected);
    };
  });
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  return failure ? 1 : 0;
}
