/**
 * The real parts behind `startApp`: each adapter turns the composition's small needs (app-parts.ts) into
 * a call of the module that owns the part. Loaded lazily by the run command so that `botflow check` and
 * friends never load the engine.
 */
import { existsSync } from 'node:fs';
import { formatProblem, hasErrors } from '../flows/problems.ts';
import type { AppParts, LoadedFlows } from './app-parts.ts';
import { StartupError } from './startup-error.ts';

/** Imports a module that is built separately; a missing one is a clear startup error, not a crash. */
async function importPart<T>(candidates: string[], what: string): Promise<T> {
  for (const candidate of candidates) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(url)) return (await import(url.href)) as T;
  }
  throw new StartupError(`this botflow build has no ${what} (looked for ${candidates.join(', ')})`);
}

function toLoaded(result: {
  flows: unknown[];
  problems: Parameters<typeof formatProblem>[0][];
}): LoadedFlows {
  return {
    flows: result.flows,
    problems: hasErrors(result.problems)
      ? result.problems.filter((p) => p.severity === 'error').map(formatProblem)
      : [],
  };
}

/** The production parts. */
export async function defaultParts(): Promise<AppParts> {
  const { startSandbox } = await import('../sandbox/start.ts');
  const flowsModule = await import('../flows/load.ts');
  const { watchFlows } = await import('../flows/watch.ts');
  return {
    async startSandbox({ host, port, logger, dbPath }) {
      const plugins = await webChatPlugins();
      const sandbox = await startSandbox({
        host,
        port,
        logger,
        ...(dbPath ? { dbPath } : {}),
        ...(plugins.plugins.length ? { plugins: plugins.plugins } : {}),
      });
      return {
        baseUrl: sandbox.baseUrl,
        token: sandbox.token,
        ...(plugins.path ? { webChatUrl: `${sandbox.baseUrl}${plugins.path}` } : {}),
        close: () => sandbox.close(),
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
      return toLoaded(await flowsModule.loadFlows(dir));
    },
    watchFlows(dir, onChange) {
      return watchFlows(dir, (result) => onChange(toLoaded(result)));
    },
    async createEngine(options) {
      const engine = await importPart<{ createEngine(o: unknown): ReturnType<AppParts['createEngine']> }>(
        ['../engine/engine.ts', '../engine/index.ts'],
        'engine (src/engine/engine.ts createEngine)',
      );
      return engine.createEngine(options);
    },
    async startPolling(options) {
      const intake = await importPart<{ startPolling(o: unknown): { stop(): Promise<void> } }>(
        ['../intake/polling.ts', '../intake/index.ts'],
        'long polling (src/intake/polling.ts startPolling)',
      );
      const handle = intake.startPolling(options);
      return { stop: () => handle.stop() };
    },
    async startWebhook(options) {
      const intake = await importPart<{
        buildWebhook(o: unknown): Promise<import('fastify').FastifyInstance>;
      }>(
        ['../intake/webhook.ts', '../intake/index.ts'],
        'webhook receiver (src/intake/webhook.ts buildWebhook)',
      );
      const app = await intake.buildWebhook(options);
      await app.listen({ host: options.host, port: options.port });
      return { address: `http://${options.host}:${options.port}${options.path}`, stop: () => app.close() };
    },
  };
}

/** The web chat page, once src/sandbox/web provides it: fastify plugins to add and the path to open. */
async function webChatPlugins(): Promise<{ plugins: never[]; path?: string }> {
  const url = new URL('../sandbox/web/index.ts', import.meta.url);
  if (!existsSync(url)) return { plugins: [] };
  const web = (await import(url.href)) as { webChat?: unknown; WEB_CHAT_PATH?: string };
  return web.webChat ? { plugins: [web.webChat as never], path: web.WEB_CHAT_PATH ?? '/' } : { plugins: [] };
}
