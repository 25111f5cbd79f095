/**
 * `botflow run` with a `bots:` section: the deployment (runtime/deployment.ts) instead of one app. Every
 * bot that can start serves; one that cannot is reported alone (stderr and its log lines, labelled `bot:
 * name`) and the others go on. SIGINT / SIGTERM stop every bot in order.
 */
import type { AppParts } from '../runtime/app-parts.ts';
import type { Config } from '../runtime/config.ts';
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

/** Runs every bot of `config.bots` until a signal; resolves with the exit code. */
export async function runDeployment(
  config: Config,
  logger: ScrubbingLogger,
  environment: DeploymentRunEnvironment,
): Promise<number> {
  let deployment: Awaited<ReturnType<typeof startDeployment>>;
  try {
    deployment = await startDeployment(config, {
      logger,
      parts: await environment.loadParts(),
      env: environment.env,
    });
  } catch (error) {
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
  for (const bot of bots) {
    if (!serving(bot.status))
      environment.print(`  ${bot.name}: ${bot.status}${bot.reason ? ` (${bot.reason.split('\n')[0]})` : ''}`);
  }
  logger.info({ bots }, 'botflow deployment is running');
  let failure: Error | undefined;
  await new Promise<void>((resolve) => {
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= deployment.stop().then(() => {
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
