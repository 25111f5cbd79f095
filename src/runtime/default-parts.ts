/**
 * The real parts behind `startApp`: each adapter turns the composition's small needs (app-parts.ts) into
 * a call of the module that owns the part. Loaded lazily by the run command so that `botflow check` and
 * friends never load the engine.
 */
import { existsSync } from 'node:fs';
import type { FastifyInstance, FastifyPluginCallback } from 'fastify';
import type { UpdateType } from '../api/schemas/index.ts';
import { createEngine } from '../engine/engine.ts';
import { type LoadResult, loadFlows } from '../flows/load.ts';
import { formatProblem } from '../flows/problems.ts';
import { rebuildFlow } from '../flows/rebuild.ts';
import { EMPTY_REGISTRY, type Registry } from '../flows/registry.ts';
import { watchFlows } from '../flows/watch.ts';
import { startPolling } from '../intake/polling.ts';
import { ensureSubscription } from '../intake/subscriptions.ts';
import { buildWebhook, webhookIntake } from '../intake/webhook.ts';
import { startSandbox } from '../sandbox/start.ts';
import { WEB_CHAT_PATH, webChat } from '../sandbox/web/index.ts';
import type { AppParts, LoadedFlows } from './app-parts.ts';
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
}

/** The production parts. */
export function defaultParts(options: DefaultPartsOptions = {}): AppParts {
  // The registry the flows were last loaded with: sessions pinned to older versions are rebuilt with it.
  let programmers: Registry = options.registry ?? EMPTY_REGISTRY;
  const given = options.registry ? { registry: options.registry } : {};
  return {
    async startSandbox({ host, port, logger, dbPath }) {
      const inspector = new Inspector();
      const sandbox = await startSandbox({
        host,
        port,
        logger,
        ...(dbPath ? { dbPath } : {}),
        plugins: [webChat, inspector.plugin],
      });
      return {
        baseUrl: sandbox.baseUrl,
        token: sandbox.token,
        webChatUrl: `${sandbox.baseUrl}${WEB_CHAT_PATH}`,
        attachEngine: (engine, loaded) =>
          inspector.attach({
            // The side panel reads a subset of the engine; its types are still settling (see inspector.ts).
            engine: engine as unknown as Parameters<Inspector['attach']>[0]['engine'],
            flows: loaded.flows,
            problems: loaded.problems,
          }),
        flowsChanged: (loaded) => inspector.setFlows(loaded.flows, loaded.problems),
        close: async () => {
          inspector.close();
          await sandbox.close();
        },
      };
    },
    async loadFlows(dir) {
      if (!existsSync(dir)) {
        return {
          flows: [],
          problems: [
            `${dir}: the flows folder does not exist: create it, or set flows.dir / BOTFLOW_FLOWS_DIR`,
          ],
        };
      }
      const result = await loadFlows(dir, given);
      programmers = result.registry ?? programmers;
      return toLoaded(result);
    },
    watchFlows(dir, onChange) {
      return watchFlows(
        dir,
        (result) => {
          programmers = result.registry ?? programmers;
          onChange(toLoaded(result));
        },
        given,
      );
    },
    createEngine(options) {
      return createEngine({
        db: options.db,
        ...(options.writer ? { writer: options.writer } : {}),
        api: options.api,
        scheduler: options.scheduler,
        flows: options.flows,
        keyStrategy: options.keyStrategy,
        ...(options.secret ? { secret: options.secret } : {}),
        logger: options.logger,
        rebuildFlow: (source) => rebuildFlow(source, { registry: programmers }),
      });
    },
    async startPolling(options) {
      const handle = startPolling({
        api: options.api,
        db: options.db,
        ...(options.types ? { types: options.types as UpdateType[] } : {}),
        limit: options.limit,
        timeout: options.timeoutSeconds,
        conversationKeyStrategy: options.keyStrategy,
        onAccepted: options.onAccepted,
        logger: options.logger,
      });
      // Announce nothing before the first-start handshake got a marker: updates after it are never skipped.
      await handle.ready;
      return { stop: () => handle.stop(), done: handle.done };
    },
    async startWebhook(options) {
      const receiver = {
        db: options.db,
        secret: options.secret,
        path: options.path,
        conversationKeyStrategy: options.keyStrategy,
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
        options.logger.info(
          { url: options.url, action: result.action },
          `webhook subscription ${result.action}`,
        );
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
    },
  };
}
