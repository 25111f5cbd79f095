/**
 * `botflow run --record <file>` end to end: a real botflow process on long polling against a sandbox,
 * people talking to the example flows; the recording holds every update and call, never the token, and
 * replays against the same flows with no differences.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecording } from '../../src/runtime/recording.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { loadFlowsOrThrow } from '../../src/testing/flows.ts';
import { replay } from '../../src/testing/replay.ts';
import { runBotflow } from '../runtime/child.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase } from '../support/postgres.ts';

const FLOWS = fileURLToPath(new URL('../../flows', import.meta.url));
let dir: string;
let sandbox: Sandbox;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-record-'));
  sandbox = await startSandbox({ limits: false });
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(['sqlite', 'postgres'] as const)('botflow run --record on %s', (database) => {
  it('records a live dialog that then replays with no differences', async () => {
    const file = join(dir, `session-${database}.jsonl`);
    const pg = database === 'postgres' ? await freshDatabase() : undefined;
    const where = pg ? ['--database-url', pg.url] : ['--db', join(dir, 'bot.db')];
    const run = runBotflow(['run', ...where, '--flows', FLOWS, '--record', file, '--log-level', 'warn'], {
      cwd: dir,
      env: { BOTFLOW_TOKEN: sandbox.token, BOTFLOW_BASE_URL: sandbox.baseUrl },
    });
    try {
      await run.waitFor(/botflow is running/, 30_000);
      const c = sandbox.control;
      const ann = (await c.createUser({ first_name: 'Ann' })).user_id;
      const lastBot = async () => (await c.view(ann)).messages.filter((m) => m.from === 'bot').at(-1)?.text;
      const answered = (text: string) => async () => ((await lastBot()) === text ? text : undefined);
      await c.startBot(ann, {});
      await eventually('the welcome', answered('Welcome! What is your name?'), 20_000); // <b> becomes markup
      await c.sendText(ann, 'dialog', 'Ann');
      await eventually('the age question', answered('Nice to meet you, Ann. How old are you?'), 20_000);
      await c.sendText(ann, 'dialog', 'old');
      await eventually('the age error', answered('Please send your age as a number, like 27.'), 20_000);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
      await run.exited;
      await pg?.drop();
    }
    expect(existsSync(file)).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(sandbox.token);
    const recording = readRecording(file);
    expect(recording.updates.map((u) => u.update.update_type)).toEqual([
      'bot_started',
      'message_created',
      'message_created',
    ]);
    expect(recording.calls.filter((c) => c.op === 'sendMessage')).toHaveLength(3);
    const result = await replay(recording, { flows: await loadFlowsOrThrow(FLOWS) });
    expect(result.differences).toEqual([]);
  }, 60_000);
});
