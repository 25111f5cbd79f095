/**
 * Steps both compositions take (`startApp` on SQLite, `startClusterApp` on PostgreSQL): the embedded
 * sandbox, loading the flows (refusing a start with problems), and hot-reloading them.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { Engine } from '../engine/engine.ts';
import type { AppParts, LoadedFlows, SandboxHandle } from './app-parts.ts';
import type { Config } from './config.ts';
import { sandboxStatePath } from './sandbox-state.ts';
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
      logger: logger.child({ component: 'sandbox' }),
    });
  } catch (error) {
    const where = `the sandbox cannot listen on ${config.sandbox.host}:${config.sandbox.port}`;
    throw describeListenError(error, where, '--port or BOTFLOW_PORT') ?? error;
  }
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
