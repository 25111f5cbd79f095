/**
 * The one way tests start a sandbox with a client in front of it (real HTTP on an ephemeral port), and,
 * for dispatch tests, the scheduler between them.
 */
import { BotApi } from '../../src/client/client.ts';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import type { Limits } from '../../src/client/scheduler/types.ts';
import { type Sandbox, type StartOptions, startSandbox } from '../../src/sandbox/index.ts';

export interface SandboxClient {
  sandbox: Sandbox;
  api: BotApi;
  close(): Promise<void>;
}

/** A sandbox (rate limits off unless `options` sets them) and a client for it. */
export async function sandboxClient(
  options: StartOptions = {},
  api: Partial<ConstructorParameters<typeof BotApi>[0]> = {},
): Promise<SandboxClient> {
  const sandbox = await startSandbox({ limits: false, ...options });
  const client = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl, ...api });
  return {
    sandbox,
    api: client,
    async close() {
      await client.close();
      await sandbox.close();
    },
  };
}

export interface SandboxScheduler extends SandboxClient {
  scheduler: Scheduler;
}

/** A sandbox with the platform's limits on (unless told), a client, and a scheduler with `limits` in front. */
export async function sandboxScheduler(
  options: {
    limits?: Limits;
    sandbox?: StartOptions;
    api?: Partial<ConstructorParameters<typeof BotApi>[0]>;
  } = {},
): Promise<SandboxScheduler> {
  // `limits: undefined` lets the sandbox keep the platform's limits; sandboxClient's default turns them off.
  const base = await sandboxClient({ limits: undefined, ...options.sandbox }, options.api);
  const scheduler = new Scheduler({ api: base.api, ...(options.limits ? { limits: options.limits } : {}) });
  return {
    ...base,
    scheduler,
    async close() {
      scheduler.close();
      await base.close();
    },
  };
}
