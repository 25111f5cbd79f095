// Many bots on one PostgreSQL database (issue 39): a schema per bot on one shared pool, migrated each, their
// data and notifications apart, one LISTEN connection for the process, leases per schema, a schema dropped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyBatch } from '../../src/store/postgres/commit.ts';
import {
  channelsOf,
  dropPostgresSchema,
  openPostgres,
  openSharedPostgres,
  type PostgresDatabase,
  pgListen,
  type SharedPostgres,
} from '../../src/store/postgres/database.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';
import { PgLeases } from '../../src/store/postgres/leases.ts';
import { pgSession } from '../../src/store/postgres/sessions.ts';
import { channelOf } from '../../src/store/postgres/shared.ts';
import type { SessionRow } from '../../src/store/sessions.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../support/postgres.ts';

const up = await postgresAvailable();

const session = (key: string): SessionRow => ({
  conversationKey: key,
  flowId: 'f',
  flowVersion: 'v1',
  status: 'active',
  stateValue: '"a"',
  snapshot: '{}',
  revision: 1,
  stepInstance: 1,
  startedRevision: 1,
  chatId: 7,
  userId: 8,
  locale: 'en',
  startedAt: 1,
  updatedAt: 2,
});

describe.skipIf(!up)('a schema per bot on one shared pool', () => {
  let db: TestDatabase;
  let shared: SharedPostgres;
  let a: PostgresDatabase;
  let b: PostgresDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    shared = await openSharedPostgres({ url: db.url, max: 3 });
    [a, b] = await Promise.all([
      openPostgres({ url: db.url, schema: 'bot_a', shared }),
      openPostgres({ url: db.url, schema: 'bot_b', shared }),
    ]);
  });
  afterAll(async () => {
    await shared?.close();
    await db?.drop();
  });

  const count = async (sql: string, params: unknown[] = []) =>
    (await shared.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0]!.n;

  it('migrates each schema on its own: its tables, functions and schema_migrations inside it', async () => {
    for (const schema of ['bot_a', 'bot_b']) {
      expect(
        await count("pg_tables WHERE schemaname = $1 AND tablename = 'schema_migrations'", [schema]),
      ).toBe(1);
      expect(await count("pg_tables WHERE schemaname = $1 AND tablename = 'sessions'", [schema])).toBe(1);
      expect(
        await count(
          "pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'botflow_apply_batch'",
          [schema],
        ),
      ).toBe(1);
    }
    expect(await count("pg_tables WHERE schemaname = 'public' AND tablename = 'sessions'")).toBe(0);
    const versions = async (pg: PostgresDatabase) =>
      (await pg.pool.query('SELECT name FROM schema_migrations ORDER BY version')).rows.map((r) => r.name);
    expect(await versions(a)).toEqual(await versions(b));
    // Opening again finds nothing to apply.
    const applied: string[] = [];
    await openPostgres({
      url: db.url,
      schema: 'bot_a',
      shared,
      logger: { info: (d) => applied.push(d.migration) },
    });
    expect(applied).toEqual([]);
  });

  it('migrates a schema once when two processes open it at once (a lock per schema)', async () => {
    const other = await openSharedPostgres({ url: db.url, max: 2 });
    try {
      const applied: string[][] = [[], []];
      await Promise.all(
        [shared, other].map((s, i) =>
          openPostgres({
            url: db.url,
            schema: 'bot_twice',
            shared: s,
            logger: { info: (d) => applied[i]!.push(d.migration) },
          }),
        ),
      );
      expect(applied.flat().length).toBeGreaterThan(0);
      expect(applied.some((names) => names.length === 0)).toBe(true);
      expect(await count('bot_twice.schema_migrations')).toBe(applied.flat().length);
    } finally {
      await other.close();
      await dropPostgresSchema(shared, 'bot_twice');
    }
  });

  it("keeps a bot's data in its schema: a session written in A is not in B", async () => {
    const [entry] = await new PgInbox(a.pool).append([
      { dedupeKey: 'u1', conversationKey: 'c:1', payload: '{}' },
    ]);
    const ops = [{ kind: 'session' as const, row: session('c:1'), expected: undefined, sameShape: false }];
    const result = await applyBatch(
      a.pool,
      null,
      [{ inboxId: entry!.id!, conversationKey: 'c:1', done: true, ops }],
      10,
    );
    expect(result).toEqual([{ status: 'applied', dropped: 0 }]);
    expect((await pgSession(a.pool, 'c:1'))?.revision).toBe(1);
    expect(await pgSession(b.pool, 'c:1')).toBeUndefined();
    expect(await count('bot_a.inbox')).toBe(1);
    expect(await count('bot_b.inbox')).toBe(0);
    // Transactions on connections checked out of either view stay in their schema too.
    const client = await b.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query('SELECT current_schema() AS s, count(*)::int AS n FROM sessions');
      await client.query('COMMIT');
      expect(rows[0]).toEqual({ s: 'bot_b', n: 0 });
    } finally {
      client.release();
    }
  });

  it("hears each bot's notifications on its own channels, all on the process's one LISTEN connection", async () => {
    const heard = { a: [] as string[], b: [] as string[] };
    const ends = { a: 0, b: 0 };
    const subscribe = (pg: PostgresDatabase, into: string[], end: () => void) => {
      const c = channelsOf(pg.schema);
      return pgListen(pg, [c.inbox, c.outbox, c.leases], (channel) => into.push(channel), end);
    };
    const la = await subscribe(a, heard.a, () => ends.a++);
    const lb = await subscribe(b, heard.b, () => ends.b++);
    expect(la?.session).toEqual(expect.any(Number));
    expect(lb?.session).toBe(la?.session);
    const listening = async () =>
      count("pg_stat_activity WHERE application_name = 'botflow_listen' AND datname = current_database()");
    expect(await listening()).toBe(1);

    await new PgInbox(a.pool).append([{ dedupeKey: 'n1', conversationKey: 'c:2', payload: '{}' }]);
    await eventually('A to hear its inbox', () => heard.a.length === 1);
    await new PgInbox(b.pool).append([{ dedupeKey: 'n1', conversationKey: 'c:2', payload: '{}' }]);
    await eventually('B to hear its inbox', () => heard.b.length === 1);
    // Notifications arrive in order on the one connection: B heard nothing of A's before its own.
    expect(heard).toEqual({ a: ['botflow_inbox_bot_a'], b: ['botflow_inbox_bot_b'] });
    await new PgLeases(b.pool).leave('gone');
    await eventually('B to hear its lease news', () => heard.b.length === 2);
    expect(heard.b[1]).toBe('botflow_leases_bot_b');
    expect(heard.a).toHaveLength(1);

    // One bot stopping leaves the connection to the other; the last one closes it.
    await la!.close();
    expect(shared.stats().listening).toBe(true);
    await new PgInbox(b.pool).append([{ dedupeKey: 'n2', conversationKey: 'c:2', payload: '{}' }]);
    await eventually('B to hear its inbox again', () => heard.b.length === 3);
    await lb!.close();
    expect(shared.stats().listening).toBe(false);
    await eventually('the LISTEN connection to end', async () => (await listening()) === 0);
    expect(ends).toEqual({ a: 0, b: 0 });
  });

  it("keeps a bot's channels heard when its old engine stops after the new one listens (a restart)", async () => {
    const c = channelsOf('bot_a');
    const heard: string[] = [];
    const keep = await pgListen(
      b,
      [channelsOf('bot_b').inbox],
      () => {},
      () => {},
    );
    const old = await pgListen(
      a,
      [c.inbox],
      () => {},
      () => {},
    );
    const next = await pgListen(
      a,
      [c.inbox],
      (channel) => heard.push(channel),
      () => {},
    );
    await old!.close();
    await new PgInbox(a.pool).append([{ dedupeKey: 'r1', conversationKey: 'c:3', payload: '{}' }]);
    await eventually('the new engine to hear its inbox', () => heard.length === 1);
    await next!.close();
    await keep!.close();
  });

  it('ends every subscription when the LISTEN connection drops (each listens again)', async () => {
    let ended = 0;
    const c = channelsOf('bot_a');
    const first = await pgListen(
      a,
      [c.inbox],
      () => {},
      () => ended++,
    );
    await pgListen(
      b,
      [channelsOf('bot_b').inbox],
      () => {},
      () => ended++,
    );
    await shared.pool.query('SELECT pg_terminate_backend($1)', [first!.session]);
    await eventually('both subscriptions to end', () => ended === 2);
    expect(shared.stats().listening).toBe(false);
    const again = await pgListen(
      a,
      [c.inbox],
      () => {},
      () => {},
    );
    expect(again?.session).not.toBe(first!.session);
    await again!.close();
  });

  it('holds leases per schema: each bot has its own dispatcher', async () => {
    expect(await new PgLeases(a.pool).acquire('x', ['dispatcher'], 60_000)).toEqual(['dispatcher']);
    expect(await new PgLeases(b.pool).acquire('y', ['dispatcher'], 60_000)).toEqual(['dispatcher']);
    expect(await new PgLeases(a.pool).owner('dispatcher')).toBe('x');
    expect(await new PgLeases(b.pool).owner('dispatcher')).toBe('y');
  });

  it('names channels in SQL as in TypeScript, a long schema name by its hash', async () => {
    const long = `bot_${'x'.repeat(56)}`;
    const c = await openPostgres({ url: db.url, schema: long, shared });
    for (const pg of [a, c]) {
      const { rows } = await pg.pool.query<{ i: string; o: string; l: string }>(
        "SELECT botflow_channel('inbox') AS i, botflow_channel('outbox') AS o, botflow_channel('leases') AS l",
      );
      const expected = channelsOf(pg.schema);
      expect(rows[0]).toEqual({ i: expected.inbox, o: expected.outbox, l: expected.leases });
    }
    expect(channelOf(long, 'outbox')).toMatch(/^botflow_outbox#[0-9a-f]{32}$/);
    expect(channelsOf()).toEqual({
      inbox: 'botflow_inbox',
      outbox: 'botflow_outbox',
      leases: 'botflow_leases',
    });
    await dropPostgresSchema(shared, long);
  });

  it('opens the default schema on the shared pool as a database of its own would', async () => {
    const main = await openPostgres({ url: db.url, shared });
    expect(main.schema).toBe('public');
    const { rows } = await main.pool.query("SELECT current_schema() AS s, botflow_channel('inbox') AS c");
    expect(rows[0]).toEqual({ s: 'public', c: 'botflow_inbox' });
    expect(await count("pg_tables WHERE schemaname = 'public' AND tablename = 'schema_migrations'")).toBe(1);
  });

  it('refuses a bad or reserved schema name, and dropping the default schema', async () => {
    for (const schema of [
      'Bot',
      '1bot',
      'bot-a',
      'a'.repeat(64),
      'pg_bot',
      'information_schema',
      'botflow_deployment',
    ])
      await expect(openPostgres({ url: db.url, schema, shared })).rejects.toMatchObject({
        code: 'BOTFLOW_POSTGRES_SCHEMA',
      });
    await expect(dropPostgresSchema(shared, 'public')).rejects.toMatchObject({
      code: 'BOTFLOW_POSTGRES_SCHEMA',
    });
  });

  it("drops a bot's schema on purpose; the other bot carries on", async () => {
    await dropPostgresSchema(db.url, 'bot_b');
    expect(await count("pg_namespace WHERE nspname = 'bot_b'")).toBe(0);
    expect((await pgSession(a.pool, 'c:1'))?.revision).toBe(1);
    await expect(b.pool.query('SELECT 1 FROM sessions')).rejects.toThrow(/sessions/);
  });
});

describe.skipIf(!up)('a schema on a pool of its own', () => {
  it('migrates and closes its pool (no shared pool given)', async () => {
    const db = await freshDatabase();
    try {
      const one = await openPostgres({ url: db.url, schema: 'solo', max: 2 });
      const { rows } = await one.pool.query(
        'SELECT current_schema() AS s, count(*)::int AS n FROM schema_migrations',
      );
      expect(rows[0].s).toBe('solo');
      expect(rows[0].n).toBeGreaterThan(0);
      await one.close();
      expect(one.shared?.pool.ended).toBe(true);
    } finally {
      await db.drop();
    }
  });
});
