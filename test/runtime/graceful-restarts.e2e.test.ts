/**
 * A deploy repeats nothing: 150 people start the bot at once, so 150 welcomes queue behind the
 * platform's 30 requests/s; botflow run (long polling, then webhook) is stopped with SIGTERM ten times
 * while they drain, and started again. Every person sees the welcome exactly once, no run logs an error, and the platform never
 * answers 429 (each start waits out the second its predecessor may have used).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { eventually } from '../support/eventually.ts';
import { untilSqliteIdle } from '../support/idle.ts';
import { runBotflow } from './child.ts';

const FLOWS = fileURLToPath(new URL('../../flows', import.meta.url));
const PEOPLE = 150;
const RESTARTS = Number(process.env.BOTFLOW_RESTARTS ?? 10);

let dir: string;
let sandbox: Sandbox;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-restarts-'));
  sandbox = await startSandbox(); // the platform's real limits
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(['polling', 'webhook'] as const)('graceful restarts with replies queued (%s)', (mode) => {
  it(`${RESTARTS} SIGTERMs while ${PEOPLE} welcomes drain: none lost, none twice, no error lines, no 429`, async () => {
    const since = Date.now();
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const env = {
      BOTFLOW_TOKEN: sandbox.token,
      BOTFLOW_BASE_URL: sandbox.baseUrl,
      BOTFLOW_DATABASE_PATH: join(dir, `${mode}.db`),
      ...(mode === 'webhook'
        ? {
            BOTFLOW_MODE: 'webhook',
            BOTFLOW_WEBHOOK_URL: `http://127.0.0.1:${port}/botflow/updates`,
            BOTFLOW_WEBHOOK_SECRET: 'restart_secret',
            BOTFLOW_WEBHOOK_HOST: '127.0.0.1',
            BOTFLOW_WEBHOOK_PORT: String(port),
          }
        : {}),
      BOTFLOW_FLOWS_DIR: FLOWS,
      BOTFLOW_POLLING_TIMEOUT_SECONDS: '1',
      // A short wait for sends in flight: most of the queue is still waiting when the database closes.
      BOTFLOW_SHUTDOWN_SEND_DEADLINE_MS: '300',
    };
    const people = await Promise.all(
      Array.from({ length: PEOPLE }, (_, i) => sandbox.control.createUser({ first_name: `${mode} ${i}` })),
    );
    const welcomes = async () => {
      let total = 0;
      const seen: number[] = [];
      for (const person of people) {
        const view = await sandbox.control.view(person.user_id);
        const n = view.messages.filter(
          (m) => m.from === 'bot' && (m.text ?? '').startsWith('Welcome!'),
        ).length;
        seen.push(n);
        total += n;
      }
      return { total, seen };
    };
    const outputs: string[] = [];
    let run = runBotflow(['run'], { cwd: dir, env });
    await run.waitFor(/botflow is running as/);
    await Promise.all(people.map((p) => sandbox.control.startBot(p.user_id)));

    for (let restart = 1; restart <= RESTARTS; restart++) {
      const before = (await welcomes()).total;
      await eventually(
        `more welcomes before restart ${restart}`,
        async () => ((await welcomes()).total >= Math.min(PEOPLE - 10, before + 20) ? true : undefined),
        120_000,
      );
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      outputs.push(run.stdout());
      run = runBotflow(['run'], { cwd: dir, env });
      await run.waitFor(/botflow is running as/);
    }
    const final = await eventually(
      'every welcome sent',
      async () => {
        const w = await welcomes();
        return w.total >= PEOPLE ? w : undefined;
      },
      120_000,
    );
    await untilSqliteIdle(env.BOTFLOW_DATABASE_PATH); // the outbox settled: nothing is on its way twice
    const settled = await welcomes();
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    outputs.push(run.stdout());

    expect(final.total).toBe(PEOPLE);
    expect(settled.seen.filter((n) => n !== 1)).toEqual([]); // each person: exactly one welcome
    const errors = outputs.flatMap((o) => o.split('\n')).filter((l) => /"level":"(error|fatal)"/.test(l));
    expect(errors).toEqual([]);
    // Each start waits out the window its predecessor may have used: the platform never said 429.
    expect(sandbox.requestLog.list(since).filter((r) => r.status === 429)).toEqual([]);
  }, 240_000);
});
