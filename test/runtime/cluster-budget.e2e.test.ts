/**
 * One rate budget for the whole deployment (issue 28): three `botflow run` processes on one PostgreSQL
 * database, the sandbox with the platform's real limits. 45 people press Start at once; each conversation
 * starts a task that runs 9 s, showing "typing…" from whichever process owns it, while the dispatcher sends
 * everyone's messages as fast as the limit allows. The platform never answers 429 and never sees more than
 * 30 requests in a second: the processes that are not the dispatcher take every call from the reserve they
 * share through the database (before, each sent its "typing…" through its own scheduler, on top of the
 * dispatcher's 28/s, and the platform refused some).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { platformFigures, startMember } from '../support/cluster-processes.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';
import type { BotflowProcess } from './child.ts';

const REGISTRY = pathToFileURL(fileURLToPath(new URL('../../src/flows/registry.ts', import.meta.url))).href;
const PEOPLE = 45;

const FLOW = `flow: job
start: work
triggers: [{ bot_started: true }]
steps:
  work:
    type: message
    say: Working on it…
    do:
      - task: slow
        input: {}
        save_as: r
        timeout: 2m
        on_error: failed
    next: done
  done: { type: end, say: "Result: {{r}}" }
  failed: { type: end, say: Failed. }
`;

const REGISTRY_FILE = `import { setTimeout as delay } from 'node:timers/promises';
import { defineRegistry } from '${REGISTRY}';
export default defineRegistry({
  tasks: { slow: async (_input, ctx) => { await delay(9000, undefined, { signal: ctx.signal }); return 'ready'; } },
});
`;

const up = await postgresAvailable();
const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

describe.skipIf(!up)('three processes, one rate budget', () => {
  it('never exceed the platform limit: tasks\' "typing…" from every process, the dispatcher at full speed', async () => {
    const db = await freshDatabase();
    cleanup.push(() => db.drop());
    const dir = mkdtempSync(join(tmpdir(), 'botflow-budget-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'flows'));
    writeFileSync(join(dir, 'flows', 'job.flow.yaml'), FLOW);
    writeFileSync(join(dir, 'flows', 'registry.ts'), REGISTRY_FILE);
    writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
    const sandbox: Sandbox = await startSandbox();
    cleanup.push(() => sandbox.close());

    const processes: BotflowProcess[] = [];
    cleanup.push(async () => {
      for (const bot of processes) bot.child.kill('SIGKILL');
      await Promise.all(processes.map((bot) => bot.exited));
    });
    for (const i of [0, 1, 2])
      processes.push(
        startMember(i, { dir, sandbox, databaseUrl: db.url, intake: { mode: 'polling' }, logLevel: 'info' }),
      );
    for (const bot of processes) await bot.waitFor(/botflow is running as/, 60_000);
    // Wait until the partitions are shared out among the three.
    for (const bot of processes) await bot.waitFor(/3 live processes/, 30_000);

    const people = await Promise.all(
      Array.from({ length: PEOPLE }, (_, i) => sandbox.control.createUser({ first_name: `P${i}` })),
    );
    await Promise.all(people.map((p) => sandbox.control.startBot(p.user_id)));
    await eventually(
      'every person to have the result',
      async () => {
        for (const p of people) {
          const texts = (await sandbox.control.view(p.user_id)).messages
            .filter((m) => m.from === 'bot')
            .map((m) => m.text);
          if (!texts.includes('Result: ready')) return false;
        }
        return true;
      },
      120_000,
    );
    for (const p of people) {
      const texts = (await sandbox.control.view(p.user_id)).messages.filter((m) => m.from === 'bot');
      expect(texts.map((m) => m.text)).toEqual(['Working on it…', 'Result: ready']);
    }
    const figures = await platformFigures(sandbox);
    // Each process says how many "typing…" it dropped so far (`total`) in its latest line about them.
    const dropped = processes
      .map((bot) => [...(bot.stdout() + bot.stderr()).matchAll(/"total":(\d+)/g)].at(-1)?.[1])
      .reduce((n, total) => n + Number(total ?? 0), 0);
    console.info(
      `cluster-budget: ${PEOPLE} people, ${figures.http429.length} HTTP 429, busiest second ${figures.busiestSecond}, ` +
        `busiest chat second ${figures.busiestChatSecond}, typing sent ${figures.byOp.sendAction ?? 0}, ` +
        `typing dropped (as last logged) ${dropped}, calls ${JSON.stringify(figures.byOp)}`,
    );
    expect(figures.http429).toEqual([]);
    expect(figures.busiestSecond).toBeLessThanOrEqual(30);
  }, 300_000);
});
