/**
 * The CLI and many bots on PostgreSQL: `--bot <name>` reaches that bot's schema (bot_<name>); `botflow
 * migrate` without `--bot` migrates every bot's schema; a schema not created yet is a clear message.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command as event } from '../../src/cli/event-command.ts';
import { command as migrate } from '../../src/cli/migrate-command.ts';
import { command as outbox } from '../../src/cli/outbox-command.ts';
import { command as stats } from '../../src/cli/stats-command.ts';
import { consoleOutput } from '../support/console-output.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.ts';

const up = await postgresAvailable();
const dir = mkdtempSync(join(tmpdir(), 'botflow-cli-bots-pg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CONFIG = join(dir, 'botflow.config.yaml');
const output = consoleOutput();

describe.skipIf(!up)('--bot on PostgreSQL', () => {
  let db: TestDatabase;
  let admin: pg.Client;
  beforeAll(async () => {
    db = await freshDatabase();
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    writeFileSync(
      CONFIG,
      `database:\n  url: ${db.url}\nflows:\n  dir: ${join(dir, 'flows')}\nbots:\n  shop:\n    token: { env: SHOP_TOKEN }\n  news:\n    token: { env: NEWS_TOKEN }\n`,
    );
  });
  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  const schemas = async () =>
    (
      await admin.query<{ name: string }>(
        "SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'bot\\_%' ORDER BY 1",
      )
    ).rows.map((row) => row.name);

  it('a bot whose schema is not there yet: a clear message, nothing created', async () => {
    expect(await output.run(stats, ['--config', CONFIG, '--bot', 'shop'])).toBe(1);
    expect(output.lines.join('\n')).toMatch(/no schema bot_shop in .* yet/);
    expect(await output.run(migrate, ['--config', CONFIG, '--bot', 'news', '--status'])).toBe(0);
    expect(output.lines.join('\n')).toMatch(/schema bot_news: not created yet/);
    expect(await schemas()).toEqual([]);
  });

  it('migrate without --bot migrates every bot its schema; --bot reads and writes that one only', async () => {
    expect(await output.run(migrate, ['--config', CONFIG])).toBe(0);
    expect(output.lines.filter((line) => line.includes('up to date'))).toHaveLength(2);
    expect(await schemas()).toEqual(['bot_news', 'bot_shop']);
    expect(await output.run(migrate, ['--config', CONFIG, '--bot', 'news', '--status'])).toBe(0);
    expect(output.lines.join('\n')).toMatch(/applied {2}001_init/);

    expect(await output.run(stats, ['--config', CONFIG, '--bot', 'shop', '--json'])).toBe(0);
    expect(await output.run(outbox, ['list', '--config', CONFIG, '--bot', 'news'])).toBe(0);
    expect(
      await output.run(event, ['send', 'paid', '--to', 'user:42', '--config', CONFIG, '--bot', 'shop']),
    ).toBe(0);
    const inbox = async (schema: string) =>
      (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".inbox`)).rows[0]!.n;
    expect(await inbox('bot_shop')).toBe(1);
    expect(await inbox('bot_news')).toBe(0);
  });
});
