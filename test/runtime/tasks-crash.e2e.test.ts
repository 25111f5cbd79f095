/**
 * A task survives a SIGKILL of botflow run: the process dies while the task runs; the next start runs it
 * again with the same idempotency key, and the person sees the result once, the dialog going on exactly
 * once. The registry logs each call to a file, and the task finishes only when the test lets it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { eventually } from '../support/eventually.ts';
import { untilSqliteIdle } from '../support/idle.ts';
import { type BotflowProcess, runBotflow } from './child.ts';

const REGISTRY = pathToFileURL(fileURLToPath(new URL('../../src/flows/registry.ts', import.meta.url))).href;

const FLOW = `flow: job
start: work
triggers: [{ bot_started: true }]
steps:
  work:
    type: message
    say: Working on it…
    do:
      - task: slow
        input: { who: "{{start_payload}}" }
        save_as: r
        timeout: 2m
        on_error: failed
    next: done
  done: { type: end, say: "Result: {{r}}" }
  failed: { type: end, say: Failed. }
`;

/** Logs each call, then waits for the release file (the test creates it after the kill). */
const registry = (log: string, release: string) => `import { appendFileSync, existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { defineRegistry } from '${REGISTRY}';

export default defineRegistry({
  tasks: {
    slow: async (input, ctx) => {
      appendFileSync(${JSON.stringify(log)}, JSON.stringify({ attempt: ctx.attempt, key: ctx.idempotencyKey, input }) + '\\n');
      while (!existsSync(${JSON.stringify(release)})) await delay(50, undefined, { signal: ctx.signal });
      return 'ready for ' + input.who;
    },
  },
});
`;

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function start(dir: string, sandbox: Sandbox): BotflowProcess {
  const bot = runBotflow(['run'], {
    cwd: dir,
    env: {
      BOTFLOW_TOKEN: sandbox.token,
      BOTFLOW_BASE_URL: sandbox.baseUrl,
      BOTFLOW_DATABASE_PATH: join(dir, 'bot.db'),
      BOTFLOW_FLOWS_DIR: join(dir, 'flows'),
      BOTFLOW_POLLING_TIMEOUT_SECONDS: '1',
    },
  });
  cleanup.push(async () => {
    bot.child.kill('SIGKILL');
    await bot.exited;
  });
  return bot;
}

it('a task running when the process is SIGKILLed runs again with the same key; the dialog goes on once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'botflow-task-crash-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'calls.jsonl');
  const release = join(dir, 'release');
  mkdirSync(join(dir, 'flows'));
  writeFileSync(join(dir, 'flows', 'job.flow.yaml'), FLOW);
  writeFileSync(join(dir, 'flows', 'registry.ts'), registry(log, release));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  const sandbox = await startSandbox();
  cleanup.push(() => sandbox.close());

  const first = start(dir, sandbox);
  await first.waitFor(/botflow is running as/);
  const ann = await sandbox.control.createUser({ first_name: 'Ann' });
  await sandbox.control.startBot(ann.user_id, { payload: 'ann' });
  const calls = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { attempt: number; key: string; input: unknown })
      : [];
  await eventually('the task to start', () => calls().length === 1, 60_000);
  first.child.kill('SIGKILL');
  await first.exited;

  writeFileSync(release, '');
  const second = start(dir, sandbox);
  const texts = async () =>
    (await sandbox.control.view(ann.user_id)).messages.filter((m) => m.from === 'bot').map((m) => m.text);
  await eventually(
    'the result',
    async () => ((await texts()).includes('Result: ready for ann') ? true : undefined),
    60_000,
  );
  await untilSqliteIdle(join(dir, 'bot.db')); // tasks finished, outbox settled: no repeat is on its way
  expect(await texts()).toEqual(['Working on it…', 'Result: ready for ann']);
  const [before, after] = calls();
  expect(calls()).toHaveLength(2);
  expect(before).toMatchObject({ attempt: 1, input: { who: 'ann' } });
  expect(after).toMatchObject({ attempt: 2, key: before!.key, input: { who: 'ann' } });
  expect(before!.key).toMatch(/^task:/);
  second.child.kill('SIGTERM');
  await second.exited;
}, 180_000);
