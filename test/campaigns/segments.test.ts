// Segments on both databases: the same people, tags, step log and people who left are written on SQLite
// and on PostgreSQL, and every segment must match the same people on both (and the people the test
// expects). Also the recipients' release rules the store reads: the cap across campaigns and people who
// left since the campaign started.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignPort, Segment } from '../../src/store/campaigns/types.ts';
import { openDatabase } from '../../src/store/database.ts';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/database.ts';
import { postgresStore } from '../../src/store/postgres/engine-store.ts';
import { sqliteStore } from '../../src/store/sqlite/engine-store.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();
const DAY = 86_400_000;
const NOW = 100 * DAY;

/** People: key, locale, last activity (days ago), session status, variables, tags. */
const PEOPLE: [string, string, number, string, Record<string, unknown>, string[]][] = [
  ['u:1', 'en', 1, 'done', { age: 30, plan: 'pro', vip: true, time_zone: 'Europe/Paris' }, ['vip', 'member']],
  ['u:2', 'en', 10, 'active', { age: 17, plan: 'basic' }, ['member']],
  ['u:3', 'ru', 40, 'done', { age: '30', plan: 'pro' }, []],
  ['u:4', 'de', 2, 'stopped', { age: 50 }, ['vip']],
  ['u:5', 'en', 3, 'done', { age: 41, vip: false }, ['member', 'beta']],
  ['u:6', 'en', 5, 'done', {}, []],
];

function seedSql(): string[] {
  const out: string[] = [];
  for (const [key, locale, ago, status, vars, tags] of PEOPLE) {
    const snapshot = JSON.stringify({
      status: 'active',
      value: 'ask',
      context: { vars, retries: 0 },
    }).replace(/'/g, "''");
    const id = key.slice(2);
    out.push(
      'INSERT INTO sessions (conversation_key, flow_id, flow_version, status, state_value, snapshot, revision, step_instance, ' +
        `started_revision, chat_id, user_id, locale, started_at, updated_at) VALUES ('${key}', 'booking', 'v1', '${status}', ` +
        `'"ask"', '${snapshot}', 3, 3, 1, ${id}, ${id}, '${locale}', 0, ${NOW - ago * DAY})`,
    );
    for (const tag of tags) out.push(`INSERT INTO person_tags VALUES ('${key}', '${tag}', 1)`);
  }
  // u:4 stopped the bot (after their last step); u:6 stopped once, then came back (a later step).
  out.push(`INSERT INTO people_left VALUES ('u:4', 'bot_stopped', ${NOW - 2 * DAY})`);
  out.push(`INSERT INTO people_left VALUES ('u:6', 'bot_stopped', ${NOW - 9 * DAY})`);
  // The step log: u:1 finished booking; u:2 left it at ask_time; u:3 at ask_time then finished later;
  // u:5 finished signup only.
  const log = (key: string, flow: string, step: string, event: string, at: number) =>
    out.push(
      'INSERT INTO step_log (conversation_key, step_instance, session_revision, flow_id, flow_version, step, event, n, at) ' +
        `VALUES ('${key}', 1, 1, '${flow}', 'v1', '${step}', '${event}', 1, ${at})`,
    );
  log('u:1', 'booking', 'ask_day', 'enter', 1);
  log('u:1', 'booking', 'done', 'finish', 2);
  log('u:2', 'booking', 'ask_day', 'enter', 3);
  log('u:2', 'booking', 'ask_time', 'enter', 4);
  log('u:3', 'booking', 'ask_time', 'enter', 5);
  log('u:3', 'booking', 'done', 'finish', 6);
  log('u:5', 'signup', 'done', 'finish', 7);
  return out;
}

const CASES: [string, Segment, string[]][] = [
  ['everyone reachable (u:4 left; u:6 came back)', {}, ['u:1', 'u:2', 'u:3', 'u:5', 'u:6']],
  ['tags: all', { tags: { all: ['vip', 'member'] } }, ['u:1']],
  ['tags: any', { tags: { any: ['vip', 'beta'] } }, ['u:1', 'u:5']],
  ['tags: none', { tags: { none: ['member'] } }, ['u:3', 'u:6']],
  ['a variable equal to a text', { vars: { plan: 'pro' } }, ['u:1', 'u:3']],
  ['a number variable: gt (a text "30" is not a number)', { vars: { age: { gt: 18 } } }, ['u:1', 'u:5']],
  ['a number variable: gt and lt', { vars: { age: { gt: 18, lt: 40 } } }, ['u:1']],
  ['in', { vars: { plan: { in: ['basic', 'gold'] } } }, ['u:2']],
  ['a boolean', { vars: { vip: true } }, ['u:1']],
  ['false', { vars: { vip: false } }, ['u:5']],
  ['null: not set', { vars: { plan: null } }, ['u:5', 'u:6']],
  ['locale', { locale: ['ru', 'de'] }, ['u:3']],
  ['active within 7 days', { activeWithinMs: 7 * DAY }, ['u:1', 'u:5', 'u:6']],
  ['inactive for 7 days', { inactiveForMs: 7 * DAY }, ['u:2', 'u:3']],
  ['finished booking', { flow: { id: 'booking', finished: true } }, ['u:1', 'u:3']],
  ['started booking and never finished', { flow: { id: 'booking', finished: false } }, ['u:2']],
  ['left booking at ask_time', { flow: { id: 'booking', endedAt: 'ask_time' } }, ['u:2']],
  ['went through signup', { flow: { id: 'signup' } }, ['u:5']],
  ['combined', { tags: { any: ['member'] }, locale: ['en'], activeWithinMs: 5 * DAY }, ['u:1', 'u:5']],
];

interface Db {
  name: string;
  campaigns: CampaignPort;
  exec(sql: string): Promise<void>;
}

const dbs: Db[] = [];
let pg: PostgresDatabase | undefined;
let pgDb: { drop(): Promise<void> } | undefined;

beforeAll(async () => {
  const sqlite = openDatabase({ path: ':memory:' });
  dbs.push({
    name: 'SQLite',
    campaigns: sqliteStore(sqlite, { now: () => NOW }).campaigns,
    exec: async (sql) => void sqlite.exec(sql),
  });
  if (up) {
    const fresh = await migratedDatabase();
    pgDb = fresh;
    pg = await openPostgres({ url: fresh.url, max: 2 });
    const pool = pg.pool;
    dbs.push({
      name: 'PostgreSQL',
      campaigns: postgresStore(pg).campaigns,
      exec: async (sql) => void (await pool.query(sql)),
    });
  }
  for (const db of dbs) for (const sql of seedSql()) await db.exec(sql);
});
afterAll(async () => {
  await pg?.close();
  await pgDb?.drop();
});

describe('segments', () => {
  it.each(CASES)('%s', async (_name, segment, expected) => {
    for (const db of dbs) {
      const { count, sample } = await db.campaigns.match(segment, NOW, 100, 'time_zone');
      expect(
        sample.map((p) => p.conversationKey),
        db.name,
      ).toEqual(expected);
      expect(count, db.name).toBe(expected.length);
    }
  });

  it('reads the person facts the same way on both', async () => {
    const seen = [];
    for (const db of dbs)
      seen.push((await db.campaigns.match({ tags: { all: ['vip'] } }, NOW, 5, 'time_zone')).sample);
    expect(seen[0]).toEqual([
      {
        conversationKey: 'u:1',
        userId: 1,
        chatId: 1,
        locale: 'en',
        lastActiveAt: NOW - DAY,
        flowId: 'booking',
        step: 'ask',
        timeZone: 'Europe/Paris',
      },
    ]);
    for (const other of seen.slice(1)) expect(other).toEqual(seen[0]);
  });

  it('snapshots recipients, counts the cap across campaigns and sees who left since', async () => {
    for (const db of dbs) {
      const c = db.campaigns;
      const base = {
        name: 'x',
        flowId: 'offer',
        spec: '{}',
        status: 'running' as const,
        createdAt: NOW,
        startAt: NOW,
      };
      expect(
        await c.create({ ...base, id: `a-${db.name}` }, { tags: { any: ['member'] } }, 'time_zone'),
      ).toBe(3);
      expect(await c.create({ ...base, id: `b-${db.name}` }, { tags: { any: ['member'] } }, undefined)).toBe(
        3,
      );
      await c.release(
        `a-${db.name}`,
        {
          release: [{ conversationKey: 'u:1', dedupeKey: `campaign:a-${db.name}:u:1`, payload: '{}' }],
          skip: [],
          defer: [],
        },
        NOW,
      );
      await db.exec(`INSERT INTO people_left VALUES ('u:5', 'dialog_removed', ${NOW})`);
      const due = await c.due(`b-${db.name}`, NOW, 10, NOW - DAY);
      expect(
        due.map((d) => [d.conversationKey, d.recentSends, d.left]),
        db.name,
      ).toEqual([
        ['u:1', 1, false],
        ['u:2', 0, false],
        ['u:5', 0, true],
      ]);
      const q = await c.queued(`a-${db.name}`);
      expect(q, db.name).toEqual({ n: 2, nextAt: NOW, released: 1 });
      await db.exec(`DELETE FROM people_left WHERE conversation_key = 'u:5'`);
    }
  });
});
