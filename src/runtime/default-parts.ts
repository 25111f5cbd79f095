/**
 * The real parts behind `startApp`: each adapter turns the composition's small needs (app-parts.ts) into
 * a call of the module that owns the part. Loaded lazily by the run command so that `botflow check` and
 * friends never load the engine.
 */
import { existsSync } from 'node:fs';
import type { FastifyInstance, FastifyPluginCallback } from 'fastify';
import type { Logger } from 'pino';
import type { UpdateType } from '../client/schemas/index.ts';
import { createEngine } from '../engine/engine.ts';
import { operatorsChats } from '../engine/lane/operators.ts';
import { type LoadOptions, type LoadResult, loadFlows } from '../flows/load.ts';
import { formatProblem } from '../flows/problems.ts';
import { rebuildFlow } from '../flows/rebuild.ts';
import { EMPTY_REGISTRY, type Registry, type TaskDefinition } from '../flows/registry.ts';
import { watchFlows } from '../flows/watch.ts';
import { startPolling } from '../intake/polling.ts';
import { ensureSubscription } from '../intake/subscriptions.ts';
import { buildWebhook, webhookIntake } from '../intake/webhook.ts';
import { openOperatorsChats } from '../sandbox/operators-chat.ts';
import { startSandbox } from '../sandbox/start.ts';
import { WEB_CHAT_PATH, webChat } from '../sandbox/web/index.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import type { AppParts, LoadedFlows, PlaygroundExtension } from './app-parts.ts';
import { EventsPanel } from './events-panel.ts';
import { Inspector } from './inspector.ts';

function toLoaded(result: LoadResult): LoadedFlows {
  return {
    flows: result.flows,
    problems: result.problems.filter((p) => p.severity === 'error').map(formatProblem),
  };
}

/** What `defaultParts` can be told. */
export interface DefaultPartsOptions {
  /** The programmers' validators, guards, effects: instead of `<flows dir>/registry.ts`. */
  registry?: Registry;
  /** More of the playground (the CLI adds "save as test"). */
  playground?: readonly PlaygroundExtension[];
}

/** A validator, guard or effect slower than this holds up every conversation: it is logged. */
const CODE_BUDGET_MS = 50;
/** Each slow function is logged at most once a minute. */
const SLOW_LOG_EVERY_MS = 60_000;

/** Loading options that time the programmers' code and log each slow function now and then. */
function timedCode(logger: Logger | undefined): Pick<LoadOptions, 'codeBudget'> {
  if (!logger) return {};
  const lastLogged = new Map<string, number>();
  return {
    codeBudget: {
      ms: CODE_BUDGET_MS,
      report(slow) {
        const key = `${slow.kind}:${slow.name}`;
        const now = wallNow();
        if (now - (lastLogged.get(key) ?? Number.NEGATIVE_INFINITY) < SLOW_LOG_EVERY_MS) return;
        lastLogged.set(key, now);
        logger.warn(
          slow,
          `${slow.kind} "${slow.name}" took ${slow.ms} ms (budget ${slow.budgetMs} ms): it runs on the engine's thread and holds up every conversation meanwhile; make it faster or do the slow part outside the step`,
        );
      },
    },
  };
}

/** The embedded sandbox with the playground (web chat, inspector, events panel and `extensions`). */
async function startPlayground(
  { host, port, logger, dbPath, flowsDir, bots }: Parameters<AppParts['startSandbox']>[0],
  extensions: readonly PlaygroundExtension[],
): ReturnType<AppParts['startSandbox']> {
  const inspector = new Inspector();
  const events = new EventsPanel();
  const sandbox = await startSandbox({
    host,
    port,
    logger,
    ...(dbPath ? { dbPath } : {}),
    ...(bots ? { bots: bots.map((name) => ({ name })) } : {}),
    plugins: [webChat, inspector.plugin, events.plugin, ...extensions.map((e) => e.plugin)],
    showToken: true, // its own token, on loopback only (startSandbox decides): docs/sandbox.md
  });
  return {
    baseUrl: sandbox.baseUrl,
    token: sandbox.token,
    ...(sandbox.tokenShown ? { shownToken: sandbox.token } : {}),
    webChatUrl: `${sandbox.baseUrl}${WEB_CHAT_PATH}`,
    attachEngine: (engine, loaded) => {
      // The same panel on both databases; on PostgreSQL it also shows the process's role.
      inspector.attach({ engine, flows: loaded.flows, problems: loaded.problems });
      void openOperatorsChats(sandbox.control, operatorsChats(loaded.flows)).catch(() => {}); // docs/handoff.md
      for (const e of extensions) e.attach(engine, loaded, flowsDir ?? 'flows');
    },
    attachEvents: (sender) => events.attach(sender),
    tokenOf: (name) => {
      const bot = sandbox.bots().find((b) => b.name === name);
      return bot && sandbox.tokenOf(bot.id);
    },
    flowsChanged: (loaded) => {
      inspector.setFlows(loaded.flows, loaded.problems);
      void openOperatorsChats(sandbox.control, operatorsChats(loaded.flows)).catch(() => {});
      for (const e of extensions) e.flowsChanged?.(loaded);
    },
    close: async () => {
      inspector.close();
      await sandbox.close();
    },
  };
}

/** Long polling, announced once its first-start handshake got a marker. */
const startPollingIntake: AppParts['startPolling'] = async (options) => {
  const handle = startPolling({
    api: options.api,
    ...(options.db ? { db: options.db } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.types ? { types: options.types as UpdateType[] } : {}),
    limit: options.limit,
    timeout: options.timeoutSeconds,
    conversationKey: options.conversationKey,
    onAccepted: options.onAccepted,
    logger: options.logger,
  });
  // Announce nothing before the first-start handshake got a marker: updates after it are never skipped.
  await handle.ready;
  return { stop: () => handle.stop(), done: handle.done };
};

/** The webhook receiver (its own server, or mounted) and the platform's subscription to it. */
const startWebhookIntake: AppParts['startWebhook'] = async (options) => {
  const receiver = {
    ...(options.db ? { db: options.db } : {}),
    secret: options.secret,
    path: options.path,
    conversationKey: options.conversationKey,
    onAccepted: options.onAccepted,
    ...(options.commit ? { commit: options.commit } : {}),
    logger: options.logger,
  };
  let app: FastifyInstance | undefined;
  let plugin: FastifyPluginCallback | undefined;
  let stop: () => Promise<void>;
  if (options.mount) {
    const intake = webhookIntake({ ...receiver, path: '/' });
    plugin = intake.plugin;
    stop = () => intake.stop();
  } else {
    const own = buildWebhook(receiver);
    if (options.routes) own.register(options.routes);
    await own.listen({ host: options.host, port: options.port });
    app = own;
    stop = () => own.close();
  }
  try {
    const result = await ensureSubscription(options.api, {
      url: options.url,
      secret: options.secret,
      ...(options.types ? { types: options.types } : {}),
    });
    options.logger.info({ url: options.url, action: result.action }, `webhook subscription ${result.action}`);
    for (const other of result.others) {
      options.logger.warn(
        { url: other.url },
        `another webhook subscription receives the same updates: ${other.url}; remove it with botflow webhook delete ${other.url} if it is stale`,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  if (!app) return { stop, ...(plugin ? { plugin } : {}) };
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { address: `http://${options.host}:${port}${options.path}`, stop };
};

/** The production parts. */
export function defaultParts(options: DefaultPartsOptions = {}): AppParts {
  // The registry the flows were last loaded with: sessions pinned to older versions are rebuilt with it.
  let programmers: Registry = options.registry ?? EMPTY_REGISTRY;
  // The tasks the engine runs: one object, refilled when the registry reloads (flows watched).
  const tasks: Record<string, TaskDefinition> = { ...programmers.tasks };
  const useRegistry = (registry: Registry | undefined) => {
    programmers = registry ?? programmers;
    for (const name of Object.keys(tasks)) delete tasks[name];
    Object.assign(tasks, programmers.tasks);
  };
  const given = options.registry ? { registry: options.registry } : {};
  return {
    startSandbox: (sandbox) => startPlayground(sandbox, options.playground ?? []),
    async loadFlows(dir, logger) {
      if (!existsSync(dir)) {
        return {
          flows: [],
          problems: [
            `${dir}: the flows folder does not exist: create it, or set flows.dir / BOTFLOW_FLOWS_DIR`,
          ],
        };
      }
      const result = await loadFlows(dir, { ...given, ...timedCode(logger) });
      useRegistry(result.registry);
      return toLoaded(result);
    },
    watchFlows(dir, onChange, logger) {
      return watchFlows(
        dir,
        (result) => {
          useRegistry(result.registry);
          onChange(toLoaded(result));
        },
        { ...given, ...timedCode(logger) },
      );
    },
    createEngine(options) {
      return createEngine({
        store: options.store,
        api: options.api,
        scheduler: options.scheduler,
        flows: options.flows,
        ...(options.secret ? { secret: options.secret } : {}),
        logger: options.logger,
        rebuildFlow: (source) => rebuildFlow(source, { registry: programmers }),
        tasks,
        ...(options.taskConcurrency ? { taskConcurrency: options.taskConcurrency } : {}),
        ...(options.botUsername ? { botUsername: options.botUsername } : {}),
        ...(options.onRole ? { onRole: options.onRole } : {}),
        ...(options.conversationKey ? { conversationKey: options.conversationKey } : {}),
        ...(options.funnelSamples === false ? { funnelSamples: false } : {}),
      });
    },
    startPolling: startPollingIntake,
    startWebhook: startWebhookIntake,
  };
}
