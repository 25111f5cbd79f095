// `botflow migrate` on PostgreSQL (a real server): migrating by URL, and moving a bot that ran on SQLite to
// PostgreSQL, after which a cluster engine carries its conversations on where they stood.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { postgresStore } from '../../src/store/postgres/engine-store.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';
import { botStarted, signupFlow, textMessage } from '../engine/fixtures.ts';
import { EngineOnDisk, SECRET } from '../engine/harness.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';

const run = promisify(execFile);
const BIN = new URL('../../bin/botflow.js', import.meta.url).pathname;
const botflow = (...args: string[]) =>
  run(process.execPath, [BIN, 'migrate', ...args], { env: { ...process.env, BOTFLOW_TOKEN: 'x' } });

const up = await postgresAvailable();

describe.skipIf(!up)('botflow migrate with PostgreSQL', { timeout: 60_000 }, () => {
  let db: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => db?.drop());

  it('applies the migrations by URL, and --status lists them, never printing the password', async () => {
    const withPassword = db.url.replace('postgres@', 'postgres:hunter2@');
    const applied = await botflow('--database-url', withPassword);
    expect(applied.stdout).toContain('applied 001_init.sql');
    expect(applied.stdout).toContain('up to date');
    expect(applied.stdout).not.toContain('hunter2');
    const status = await botflow('--status', '--database-url', db.url);
    expect(status.stdout).toMatch(/^applied {2}001_init\.sql {2}\d{4}-/m);
  });

  it('moves a SQLite bot to PostgreSQL: conversations go on where they stood, timers and all', async () => {
    const sqlite = new EngineOnDisk(() => [signupFlow]);
    sqlite.deliver(botStarted(1, sqlite.time), botStarted(2, sqlite.time));
    sqlite.engine.processPending();
    sqlite.deliver(textMessage(2, sqlite.time + 1, 'Ann'));
    sqlite.engine.processPending();
    await sqlite.engine.stop();
    sqlite.db.close();

    const target = await freshDatabase();
    try {
      const copied = await botflow('--from', `sqlite:${sqlite.path}`, '--to', target.url);
      expect(copied.stdout).toMatch(/copied .* sessions 2, inbox 3, outbox 3, timers 2, tasks 0, step_log 3/);
      // Into a database that holds data already: refused, nothing changed.
      const again = await botflow('--from', `sqlite:${sqlite.path}`, '--to', target.url).catch((e) => e);
      expect(again.stderr).toContain('already holds sessions');

      const pg = await openPostgres({ url: target.url });
      const engine = createEngine({
        store: postgresStore(pg),
        flows: [signupFlow],
        secret: SECRET,
        tickMs: 50,
      });
      await engine.start();
      const inbox = new PgInbox(pg.pool);
      await inbox.append([{ ...updateEntry(JSON.stringify(textMessage(1, sqlite.time + 2, 'Bo'))) }]);
      engine.notify();
      await eventually('person 1 goes on to the plan question', async () => {
        const { rows } = await pg.pool.query(
          'SELECT args FROM outbox WHERE conversation_key = (SELECT conversation_key FROM sessions WHERE user_id = 1) ORDER BY id',
        );
        return rows.map((r) => JSON.parse(r.args).text).includes('Hello Bo! Pick a plan:');
      });
      const { rows } = await pg.pool.query("SELECT count(*)::int AS n FROM timers WHERE status = 'armed'");
      expect(rows[0].n).toBe(0); // person 2's reminder left with their step; person 1's too, now
      await engine.stop();
      await pg.close();
    } finally {
      await target.drop();
      await sqlite.close();
    }
  });
});
