/**
 * Faults between botflow run and the platform, through a fault-injecting proxy (test/fault-proxy.ts):
 * a 30-second outage in the middle of 30 wizards loses nothing and the conversations go on; with 30% of
 * the sends answered by a fault after the platform stored them, people see each message once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { crashSeed } from '../crash-load.ts';
import { type FaultProxy, startFaultProxy } from '../fault-proxy.ts';
import { eventually } from '../support/eventually.ts';
import { untilSqliteIdle } from '../support/idle.ts';
import { type BotflowProcess, runBotflow } from './child.ts';

const FLOWS = fileURLToPath(new URL('../../flows', import.meta.url));
const PEOPLE = 30;
let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function setUp(
  name: string,
): Promise<{ sandbox: Sandbox; proxy: FaultProxy; bot: BotflowProcess; dbPath: string }> {
  const { random } = crashSeed(name);
  const dir = mkdtempSync(join(tmpdir(), 'botflow-faults-'));
  const sandbox = await startSandbox();
  const proxy = await startFaultProxy(sandbox.baseUrl, random);
  const bot = runBotflow(['run'], {
    cwd: dir,
    env: {
      BOTFLOW_TOKEN: sandbox.token,
      BOTFLOW_BASE_URL: proxy.url,
      BOTFLOW_DATABASE_PATH: join(dir, 'bot.db'),
      BOTFLOW_FLOWS_DIR: FLOWS,
      BOTFLOW_POLLING_TIMEOUT_SECONDS: '1',
      BOTFLOW_LIMITS_REQUEST_TIMEOUT_MS: '5000',
    },
  });
  cleanup.push(
    () => sandbox.close(),
    () => proxy.close(),
    () => rmSync(dir, { recursive: true, force: true }),
    async () => {
      bot.child.kill('SIGTERM');
      await bot.exited;
    },
  );
  await bot.waitFor(/botflow is running as/);
  return { sandbox, proxy, bot, dbPath: join(dir, 'bot.db') };
}

/** The bot's messages each person sees, in order. */
async function botTexts(sandbox: Sandbox, ids: number[]): Promise<string[][]> {
  return Promise.all(
    ids.map(async (id) =>
      (await sandbox.control.view(id)).messages.filter((m) => m.from === 'bot').map((m) => m.text ?? ''),
    ),
  );
}

describe('faults between botflow and the platform', () => {
  it('a 30-second outage mid-wizard loses no message, and the conversations go on', async () => {
    const { sandbox, proxy } = await setUp('outage');
    const people = await Promise.all(
      Array.from({ length: PEOPLE }, (_, i) => sandbox.control.createUser({ first_name: `P${i}` })),
    );
    const ids = people.map((p) => p.user_id);
    await Promise.all(ids.map((id) => sandbox.control.startBot(id)));
    await eventually(
      'every welcome',
      async () => ((await botTexts(sandbox, ids)).every((t) => t.length === 1) ? true : undefined),
      120_000,
    );
    proxy.outageUntil(Date.now() + 30_000);
    // People answer during the outage: the updates wait on the platform, the replies wait in the outbox.
    await Promise.all(ids.map((id, i) => sandbox.control.sendText(id, 'dialog', `Name${i}`)));
    const texts = await eventually(
      'every second question after the outage',
      async () => {
        const t = await botTexts(sandbox, ids);
        return t.every((x) => x.length >= 2) ? t : undefined;
      },
      120_000,
    );
    expect(proxy.stats.outage).toBeGreaterThan(0);
    texts.forEach((t, i) => {
      expect(t[0]).toMatch(/^Welcome!/);
      expect(t[1]).toBe(`Nice to meet you, Name${i}. How old are you?`);
      expect(t).toHaveLength(2); // nothing twice
    });
  }, 240_000);

  it('30% ambiguous faults on sends: people see each message once (at most 1% duplicated)', async () => {
    const { sandbox, proxy, dbPath } = await setUp('ambiguous');
    proxy.ambiguousShare(0.3);
    const people = await Promise.all(
      Array.from({ length: PEOPLE }, (_, i) => sandbox.control.createUser({ first_name: `A${i}` })),
    );
    const ids = people.map((p) => p.user_id);
    await Promise.all(ids.map((id) => sandbox.control.startBot(id)));
    await eventually(
      'every welcome',
      async () => ((await botTexts(sandbox, ids)).every((t) => t.length >= 1) ? true : undefined),
      120_000,
    );
    await Promise.all(ids.map((id, i) => sandbox.control.sendText(id, 'dialog', `Name${i}`)));
    await eventually(
      'every age question',
      async () => ((await botTexts(sandbox, ids)).every((t) => t.length >= 2) ? true : undefined),
      120_000,
    );
    await Promise.all(ids.map((id) => sandbox.control.sendText(id, 'dialog', '30')));
    await eventually(
      'every email question',
      async () => ((await botTexts(sandbox, ids)).every((t) => t.length >= 3) ? true : undefined),
      120_000,
    );
    await untilSqliteIdle(dbPath); // the outbox settled: no duplicate is on its way
    const texts = await botTexts(sandbox, ids);
    const sends = texts.reduce((n, t) => n + t.length, 0);
    const duplicated = texts.reduce((n, t) => n + (t.length - new Set(t).size), 0);
    console.info(
      `ambiguous faults: ${proxy.stats.ambiguous} of ${proxy.stats.forwarded} forwarded; ${duplicated} duplicated of ${sends} messages seen`,
    );
    expect(proxy.stats.ambiguous).toBeGreaterThan(10);
    expect(duplicated / sends).toBeLessThanOrEqual(0.01);
  }, 240_000);
});
