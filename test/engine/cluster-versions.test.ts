// A rolling deploy on PostgreSQL: a conversation started on flow version 1 in one process goes on on version
// 1 in a process that loaded only version 2 (rebuilt from the source stored in the shared database), while
// new conversations start on version 2. Real server, the sandbox over HTTP.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { Scheduler } from '../../src/dispatch/scheduler/scheduler.ts';
import { type ClusterEngine, createClusterEngine } from '../../src/engine/cluster-engine.ts';
import { compileSources } from '../../src/flows/load.ts';
import { rebuildFlow } from '../../src/flows/rebuild.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { buildWebhook } from '../../src/intake/webhook.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/database.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();

const flowFile = (version: number, question: string) => `flow: signup
version: ${version}
start: ask_name
triggers: [{ bot_started: true }]
steps:
  ask_name:
    type: input
    say: "${question}"
    input: text
    retries: { max: 3, exhausted: { goto: done } }
    save: name
    next: done
  done:
    type: end
    say: "v${version}: welcome {{name}}"
`;

describe.skipIf(!up)('a rolling deploy on PostgreSQL', () => {
  let db: { url: string; drop(): Promise<void> };
  let sandbox: Sandbox;
  let webhook: ReturnType<typeof buildWebhook>;
  const running: { pg: PostgresDatabase; api: BotApi; scheduler: Scheduler; engine: ClusterEngine }[] = [];

  async function startProcess(name: string, source: string) {
    const compiled = compileSources([{ file: 'signup.flow.yaml', source }], EMPTY_REGISTRY, new Map());
    expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const pg = await openPostgres({ url: db.url, max: 3 });
    const api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
    const scheduler = new Scheduler({ api });
    const engine = createClusterEngine({
      pg,
      flows: compiled.flows,
      api,
      scheduler,
      member: name,
      tickMs: 100,
      leaseMs: 500,
      rebuildFlow: (stored) => rebuildFlow(stored, { registry: EMPTY_REGISTRY }),
    });
    await engine.start();
    const process = { pg, api, scheduler, engine };
    running.push(process);
    return process;
  }

  async function stopProcess(process: (typeof running)[number]) {
    await process.engine.stop({ waitMs: 5000 });
    process.scheduler.close();
    await process.api.close();
    await process.pg.close();
    running.splice(running.indexOf(process), 1);
  }

  beforeAll(async () => {
    db = await freshDatabase();
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

  afterAll(async () => {
    for (const process of [...running]) await stopProcess(process);
    await webhook?.close();
    await sandbox?.close();
    await db?.drop();
  });

  const botTexts = async (userId: number) =>
    (await sandbox.control.view(userId)).messages.filter((m) => m.from === 'bot').map((m) => m.text);
  const hears = (userId: number, texts: string[]) =>
    eventually(
      `person ${userId} to have heard ${JSON.stringify(texts)}`,
      async () => {
        expect(await botTexts(userId)).toEqual(texts);
        return true;
      },
      { timeoutMs: 20_000, tolerateThrows: true },
    );

  it('goes on with a conversation on the version it started on, in a process that loaded only the next', async () => {
    const old = await startProcess('v1', flowFile(1, 'What is your name?'));
    const ann = await sandbox.control.createUser({ first_name: 'Ann' });
    await sandbox.control.startBot(ann.user_id);
    await hears(ann.user_id, ['What is your name?']);

    await startProcess('v2', flowFile(2, 'Your name, please?'));
    await stopProcess(old);
    await sandbox.control.sendMessage(ann.user_id, 'dialog', { text: 'Ann' });
    await hears(ann.user_id, ['What is your name?', 'v1: welcome Ann']);

    const bob = await sandbox.control.createUser({ first_name: 'Bob' });
    await sandbox.control.startBot(bob.user_id);
    await sandbox.control.sendMessage(bob.user_id, 'dialog', { text: 'Bob' });
    await hears(bob.user_id, ['Your name, please?', 'v2: welcome Bob']);
  });
});
