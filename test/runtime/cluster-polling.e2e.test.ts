/**
 * Long polling with two `botflow run` processes on one PostgreSQL database: exactly one polls (the
 * dispatcher), and when it is SIGKILLed the other takes polling over, from the marker the first committed,
 * within seconds. Every person who pressed Start before, during and after the kill hears the welcome once.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';
import { type BotflowProcess, runBotflow } from './child.ts';

const FLOW = `flow: hello
start: hi
triggers: [{ bot_started: true }]
steps:
  hi: { type: end, say: Hello there. }
`;

const up = await postgresAvailable();
const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

describe.skipIf(!up)('long polling with two processes on PostgreSQL', () => {
  it('polls from one process at a time and fails over to the other when it dies, losing and repeating nothing', async () => {
    const db = await freshDatabase();
    cleanup.push(() => db.drop());
    const dir = mkdtempSync(join(tmpdir(), 'botflow-cluster-polling-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'flows'));
    writeFileSync(join(dir, 'flows', 'hello.flow.yaml'), FLOW);
    const sandbox: Sandbox = await startSandbox({});
    cleanup.push(() => sandbox.close());

    const processes: BotflowProcess[] = [];
    cleanup.push(async () => {
      for (const bot of processes) bot.child.kill('SIGKILL');
      await Promise.all(processes.map((bot) => bot.exited));
    });
    for (const name of ['a', 'b']) {
      const bot = runBotflow(['run'], {
        cwd: dir,
        env: {
          BOTFLOW_TOKEN: sandbox.token,
          BOTFLOW_BASE_URL: sandbox.baseUrl,
          BOTFLOW_DATABASE_URL: db.url,
          BOTFLOW_MODE: 'polling',
          BOTFLOW_POLLING_TIMEOUT_SECONDS: '5',
          BOTFLOW_FLOWS_DIR: join(dir, 'flows'),
          BOTFLOW_LOG_LEVEL: 'info',
        },
      });
      processes.push(bot);
      await bot.waitFor(/botflow is running as/, 60_000);
      if (name === 'a') await bot.waitFor(/long polling started/, 10_000);
    }
    const [first, second] = processes as [BotflowProcess, BotflowProcess];

    const people: number[] = [];
    const press = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const person = await sandbox.control.createUser({ first_name: `P${people.length}` });
        people.push(person.user_id);
        await sandbox.control.startBot(person.user_id);
      }
    };
    const everyoneHeard = () =>
      eventually(
        'every person to hear the welcome once',
        async () => {
          for (const id of people) {
            const texts = (await sandbox.control.view(id)).messages.filter((m) => m.from === 'bot');
            expect(texts.map((m) => m.text)).toEqual(['Hello there.']);
          }
          return true;
        },
        { timeoutMs: 30_000, tolerateThrows: true },
      );

    await press(5);
    await everyoneHeard();
    expect(second.stdout() + second.stderr()).not.toMatch(/long polling started/); // one poller at a time

    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    await first.exited;
    await press(5); // while nobody polls: they wait on the platform
    await second.waitFor(/long polling started/, 15_000);
    const failoverMs = Date.now() - killedAt;
    await press(5);
    await everyoneHeard();
    expect(failoverMs).toBeLessThan(10_000);
    console.log(`cluster-polling: ${people.length} people, polling failed over in ${failoverMs} ms`);
  }, 120_000);
});
