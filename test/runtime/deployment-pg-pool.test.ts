/**
 * startDeployment on PostgreSQL (issue 39): the bots of one deployment share the process's one pool and
 * one LISTEN connection (counted in pg_stat_activity), each bot's data in its own schema `bot_<name>`,
 * each answering its own people.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/runtime/config.ts';
import { defaultParts } from '../../src/runtime/default-parts.ts';
import { startDeployment } from '../../src/runtime/deployment.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { flowsSaying, keptLogger, tempBotsCatalog } from '../support/bots.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.ts';

const up = await postgresAvailable();
const dir = mkdtempSync(join(tmpdir(), 'botflow-deployment-pg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A new person starts the bot and is greeted with `text`; their user id. */
async function greetedPerson(sandbox: Sandbox, text: string): Promise<number> {
  const person = await sandbox.control.createUser({ first_name: 'Ann' });
  await sandbox.control.startBot(person.user_id);
  await sandbox.control.waitForView(
    person.user_id,
    'dialog',
    (v) => v.messages.some((m) => m.from === 'bot' && m.text?.includes(text)),
    { timeoutMs: 15_000 },
  );
  return person.user_id;
}

describe.skipIf(!up)('startDeployment on PostgreSQL', () => {
  let db: TestDatabase;
  let admin: pg.Client;
  beforeAll(async () => {
    db = await freshDatabase();
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  const connections = async (applicationName: string) =>
    (
      await admin.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
        [applicationName],
      )
    ).rows[0]!.n;

  it('runs two bots on one pool and one LISTEN connection, each in its schema, each answering its people', async () => {
    const [one, two] = await Promise.all([startSandbox({ limits: false }), startSandbox({ limits: false })]);
    const env = { ONE_TOKEN: one.token, TWO_TOKEN: two.token };
    const config = loadConfig({
      env,
      cwd: dir,
      values: {
        database: { url: db.url },
        bots: [
          {
            name: 'one',
            token: { env: 'ONE_TOKEN' },
            baseUrl: one.baseUrl,
            flows: flowsSaying(dir, 'one', 'Hi from one'),
          },
          {
            name: 'two',
            token: { env: 'TWO_TOKEN' },
            baseUrl: two.baseUrl,
            flows: flowsSaying(dir, 'two', 'Hi from two'),
          },
        ],
      },
    });
    const { logger, lines } = keptLogger();
    const deployment = await startDeployment(config, {
      logger,
      parts: defaultParts(),
      env,
      catalog: tempBotsCatalog(),
    });
    try {
      expect(deployment.bots().map((bot) => [bot.name, bot.status])).toEqual([
        ['one', 'running'],
        ['two', 'running'],
      ]);
      const [ann, bob] = await Promise.all([
        greetedPerson(one, 'Hi from one'),
        greetedPerson(two, 'Hi from two'),
      ]);

      // One LISTEN connection for the process (a pool per bot would hold one each), and one pool of at most
      // its 10 connections (two pools of their own could hold 12).
      expect(await connections('botflow_listen')).toBe(1);
      expect(await connections('botflow')).toBeGreaterThan(0);
      expect(await connections('botflow')).toBeLessThanOrEqual(10);

      // Each bot's people in its own schema, none in the other's nor in public.
      const people = async (schema: string) =>
        (
          await admin.query<{ person: number }>(`SELECT user_id::int AS person FROM "${schema}".sessions`)
        ).rows.map((row) => row.person);
      expect(await people('bot_one')).toEqual([ann]);
      expect(await people('bot_two')).toEqual([bob]);
      const inPublic = await admin.query(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'sessions'",
      );
      expect(inPublic.rowCount).toBe(0);
    } finally {
      await deployment.stop();
      await Promise.all([one.close(), two.close()]);
    }
    // The pool closed with the last bot (a server process leaves pg_stat_activity a moment after its client).
    await eventually('the pool closed', async () => (await connections('botflow')) === 0);
    await eventually('the LISTEN connection closed', async () => (await connections('botflow_listen')) === 0);
    for (const token of Object.values(env)) expect(lines.join('')).not.toContain(token);
  }, 60_000);
});
