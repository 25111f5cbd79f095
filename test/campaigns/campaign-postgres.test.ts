// A campaign on PostgreSQL through the engine: the dispatcher lease holder's runner releases the segment,
// the planner starts the flow with bulk calls, tags are written by the step, and the figures add up; a
// person who stopped the bot is skipped.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.ts';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/database.ts';
import { postgresStore } from '../../src/store/postgres/engine-store.ts';
import { eventually } from '../support/eventually.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';
import { flows } from './fixtures.ts';

const up = await postgresAvailable();
let database: Awaited<ReturnType<typeof migratedDatabase>> | undefined;
let pg: PostgresDatabase | undefined;
let engine: Engine<false> | undefined;

beforeAll(async () => {
  if (!up) return;
  database = await migratedDatabase();
  pg = await openPostgres({ url: database.url });
});
afterAll(async () => {
  await engine?.stop({ waitMs: 0 });
  await pg?.close();
  await database?.drop();
});

it.skipIf(!up)('runs a campaign on PostgreSQL', { timeout: 60_000 }, async () => {
  const db = pg!;
  const version = flows()[0]!.version;
  const ago = Date.now() - 86_400_000;
  for (let user = 1; user <= 30; user++) {
    await db.pool.query(
      'INSERT INTO sessions (conversation_key, flow_id, flow_version, status, state_value, snapshot, revision, ' +
        "step_instance, started_revision, chat_id, user_id, locale, started_at, updated_at) VALUES ($1, 'welcome', $2, 'done', " +
        `'"done"', '{"status":"done","value":"done","context":{"vars":{},"retries":0}}', 3, 3, 1, $3, $3, 'en', $4, $4)`,
      [`u:${user}`, version, user, ago],
    );
  }
  await db.pool.query(`INSERT INTO person_tags VALUES ('u:1', 'vip', 1)`);
  await db.pool.query(`INSERT INTO people_left VALUES ('u:2', 'bot_stopped', ${ago + 1})`);
  engine = createEngine({
    store: postgresStore(db),
    flows: flows(),
    secret: 'campaign-postgres-secret',
    campaignIntervalMs: 50,
  });
  await engine.start();
  const plan = await engine.campaigns.plan({
    flow: 'offer',
    segment: { where: { tags: { none: ['vip'] } } },
  });
  expect(plan.count).toBe(28);
  const c = await engine.campaigns.start({
    name: 'pg',
    flow: 'offer',
    with: { code: 'PG' },
    rate: '25/s',
    segment: { where: { tags: { none: ['vip'] } } },
  });
  expect(c.recipients).toBe(28);
  await eventually(
    'the campaign is done',
    async () => (await engine!.campaigns.status('pg')).status === 'done',
    20_000,
  );
  const status = await engine.campaigns.status('pg');
  expect(status.byStatus).toMatchObject({ sent: 28, skipped: 0, queued: 0, released: 0 });
  const { rows } = await db.pool.query(
    "SELECT conversation_key AS k, priority FROM outbox WHERE args LIKE '%Spring offer PG%' ORDER BY 1",
  );
  expect(rows).toHaveLength(28);
  expect(new Set(rows.map((r) => r.priority))).toEqual(new Set(['bulk']));
  expect(rows.map((r) => r.k)).not.toContain('u:1');
  expect(rows.map((r) => r.k)).not.toContain('u:2');
});
