/**
 * Several cluster engines on a fresh PostgreSQL database, on real parts: the sandbox over HTTP delivering
 * to a webhook receiver that commits to the database, and engines started and stopped by the test (as
 * processes would be). Call inside a `describe`: the database, sandbox and receiver come up before its
 * tests and go after them, with every engine still running.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { createEngine, type Engine, type EngineOptions } from '../../src/engine/engine.ts';
import { buildWebhook } from '../../src/intake/webhook.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/database.ts';
import { postgresStore } from '../../src/store/postgres/engine-store.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';
import { migratedDatabase } from './postgres.ts';

/** One engine "process": its pool, client, scheduler and engine. */
export interface ClusterProcess {
  name: string;
  pg: PostgresDatabase;
  api: BotApi;
  scheduler: Scheduler;
  engine: Engine<false>;
}

/** What a test passes to each engine (the harness adds the database, client, scheduler and name). */
export type EngineSetup = Omit<EngineOptions<false>, 'store' | 'db' | 'api' | 'scheduler' | 'member'>;

export interface ClusterHarness {
  readonly sandbox: Sandbox;
  readonly url: string;
  /** The engines running now, in start order. */
  readonly processes: ClusterProcess[];
  /** Starts an engine named `name` (fast leases: tick 100 ms, lease 500 ms, unless `setup` says otherwise). */
  start(name: string, setup: EngineSetup): Promise<ClusterProcess>;
  /** Stops it as a process stops (SIGTERM): hands its partitions over, waits `waitMs` for work in flight. */
  stop(process: ClusterProcess, waitMs?: number): Promise<void>;
  /** The texts the bot sent a person, in order. */
  botTexts(userId: number): Promise<string[]>;
}

export function useClusterHarness(): ClusterHarness {
  let db: { url: string; drop(): Promise<void> } | undefined;
  let sandbox: Sandbox | undefined;
  let webhook: ReturnType<typeof buildWebhook> | undefined;
  const processes: ClusterProcess[] = [];

  beforeAll(async () => {
    db = await migratedDatabase();
    sandbox = await startSandbox({ limits: false });
    const intakeDb = await openPostgres({ url: db.url, max: 2 });
    const inbox = new PgInbox(intakeDb.pool);
    webhook = buildWebhook({ commit: (entries) => inbox.append(entries) });
    webhook.addHook('onClose', () => intakeDb.close());
    await webhook.listen({ port: 0, host: '127.0.0.1' });
    const admin = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
    await admin.subscribe({
      url: `http://127.0.0.1:${(webhook.server.address() as AddressInfo).port}/webhook`,
    });
    await admin.close();
  });

  const harness: ClusterHarness = {
    get sandbox() {
      if (!sandbox) throw new Error('the cluster harness is not up: use it inside the tests of its describe');
      return sandbox;
    },
    get url() {
      if (!db) throw new Error('the cluster harness is not up: use it inside the tests of its describe');
      return db.url;
    },
    processes,
    async start(name, setup) {
      const pg = await openPostgres({ url: harness.url, max: 3 });
      const api = new BotApi({ token: harness.sandbox.token, baseUrl: harness.sandbox.baseUrl });
      const scheduler = new Scheduler({ api });
      const engine = createEngine({
        tickMs: 100,
        leaseMs: 500,
        ...setup,
        store: postgresStore(pg),
        api,
        scheduler,
        member: name,
      });
      await engine.start();
      const process = { name, pg, api, scheduler, engine };
      processes.push(process);
      return process;
    },
    async stop(process, waitMs = 5000) {
      await process.engine.stop({ waitMs });
      process.scheduler.close();
      await process.api.close();
      await process.pg.close();
      processes.splice(processes.indexOf(process), 1);
    },
    async botTexts(userId) {
      const view = await harness.sandbox.control.view(userId);
      return view.messages.filter((m) => m.from === 'bot').map((m) => m.text ?? '');
    },
  };

  afterAll(async () => {
    for (const process of [...processes]) await harness.stop(process);
    await webhook?.close();
    await sandbox?.close();
    await db?.drop();
  });
  return harness;
}
