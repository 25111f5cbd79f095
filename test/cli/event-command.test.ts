/**
 * `botflow event send` (issue 29): into a real SQLite file and a real PostgreSQL database while no bot runs,
 * and with --url to a real events endpoint on 127.0.0.1. Exit codes: 0 stored or duplicate, 1 not stored,
 * 2 the command or the event is wrong.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli.ts';
import { buildEventsServer } from '../../src/intake/events-endpoint.ts';
import { openDatabase } from '../../src/store/database.ts';
import { openPostgres } from '../../src/store/postgres/database.ts';
import { appEventSender } from '../support/event-sender.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const pgUp = await postgresAvailable();
const dir = mkdtempSync(join(tmpdir(), 'botflow-event-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => out.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => err.push(parts.join(' ')));
  const code = await main(['event', ...args]);
  vi.restoreAllMocks();
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function sqliteFile(name: string): string {
  const path = join(dir, name);
  openDatabase({ path }).close();
  return path;
}

const rowsOf = (path: string) => {
  const db = new SQLite(path, { readonly: true });
  try {
    return db
      .prepare(
        "SELECT conversation_key AS conversation, dedupe_key AS dedupe, payload FROM inbox WHERE kind = 'event'",
      )
      .all() as { conversation: string; dedupe: string; payload: string }[];
  } finally {
    db.close();
  }
};

describe('botflow event send into the database', () => {
  // Events are checked against the flows of flows.dir (as the running bot checks them): none here, so that
  // the cases below are about storing; the check has its own case.
  const flowsBefore = process.env.BOTFLOW_FLOWS_DIR;
  beforeAll(() => {
    process.env.BOTFLOW_FLOWS_DIR = mkdtempSync(join(dir, 'no-flows-'));
  });
  afterAll(() => {
    if (flowsBefore === undefined) delete process.env.BOTFLOW_FLOWS_DIR;
    else process.env.BOTFLOW_FLOWS_DIR = flowsBefore;
  });

  it('refuses what the flows of flows.dir refuse: an unknown name, a payload against the schema', async () => {
    const db = sqliteFile('checked.db');
    const flows = process.env.BOTFLOW_FLOWS_DIR;
    process.env.BOTFLOW_FLOWS_DIR = join(import.meta.dirname, '../../flows');
    try {
      const typo = await run('send', 'order_shiped', '--to', 'user:42', '--db', db);
      expect([typo.code, typo.err]).toEqual([2, expect.stringContaining('did you mean "order_shipped"')]);
      const bad = await run(
        'send',
        'order_shipped',
        '--to',
        'user:42',
        '--payload',
        '{"carrier": 7}',
        '--db',
        db,
      );
      expect([bad.code, bad.err]).toEqual([2, expect.stringContaining('payload.carrier')]);
      // A missing required field says which, in which event, and what to do.
      const missing = await run('send', 'order_shipped', '--to', 'user:42', '--payload', '{}', '--db', db);
      expect([missing.code, missing.err]).toEqual([
        2,
        expect.stringContaining(
          'payload.carrier: missing, and event "order_shipped" requires it (a text): send the event with "carrier" in its payload',
        ),
      ]);
      expect(rowsOf(db)).toEqual([]);
      const good = await run(
        'send',
        'order_shipped',
        '--to',
        'user:42',
        '--payload',
        '{"carrier": "DHL"}',
        '--db',
        db,
      );
      expect(good.code).toBe(0);
      expect(rowsOf(db)).toHaveLength(1);
    } finally {
      process.env.BOTFLOW_FLOWS_DIR = flows;
    }
  });

  it('stores an event while no bot runs; the same key again stores nothing', async () => {
    const db = sqliteFile('store.db');
    const payloadFile = join(dir, 'payload.json');
    writeFileSync(payloadFile, '{"carrier": "DHL", "tracking": "JJ1"}');
    const first = await run(
      'send',
      'order_shipped',
      '--to',
      'user:42',
      '--payload-file',
      payloadFile,
      '--key',
      'A-17',
      '--db',
      db,
    );
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(first.out).toMatch(/^event order_shipped stored for u:42 \(inbox row \d+\)$/);
    const again = await run(
      'send',
      'order_shipped',
      '--to',
      'user:42',
      '--payload',
      '{}',
      '--key',
      'A-17',
      '--db',
      db,
    );
    expect(again.code).toBe(0);
    expect(again.out).toContain('was stored before for u:42: nothing new stored');
    const group = await run('send', 'table_ready', '--to', 'chat:-7:user:42', '--db', db);
    expect(group.out).toContain('stored for c:-7:u:42');
    const rows = rowsOf(db);
    expect(rows.map((r) => r.conversation)).toEqual(['u:42', 'c:-7:u:42']);
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({
      name: 'order_shipped',
      payload: { carrier: 'DHL' },
      key: 'A-17',
    });
  });

  it('refuses a wrong command or event with exit 2 and a missing database with exit 1, storing nothing', async () => {
    const db = sqliteFile('refusals.db');
    const cases = [
      [['send', 'order_shipped', '--db', db], 2, 'say who the event is for'],
      [['send', 'order_shipped', '--to', 'person:42', '--db', db], 2, 'give user:42, chat:-7'],
      [
        ['send', 'order_shipped', '--to', 'user:42', '--payload', '{carrier:', '--db', db],
        2,
        'the payload is not JSON',
      ],
      [['send', '--to', 'user:42', '--db', db], 2, 'name the event'],
      [['ship', 'x', '--to', 'user:42', '--db', db], 2, 'unknown action "ship"'],
      [['send', '9lives', '--to', 'conv:x:1', '--db', db], 2, 'to.conversation "x:1"'],
      [['send', 'order_shipped', '--to', 'user:42', '--db', join(dir, 'none.db')], 1, 'no database at'],
    ] as const;
    for (const [args, code, text] of cases) {
      const r = await run(...args);
      expect([r.code, r.err], args.join(' ')).toEqual([code, expect.stringContaining(text)]);
    }
    expect(rowsOf(db)).toEqual([]);
    const unknown = await run('send', 'x', '--to', 'user:1', '--paylod', '{}');
    expect([unknown.code, unknown.err]).toEqual([2, expect.stringContaining('did you mean --payload?')]);
    const help = await run('--help');
    expect([help.code, help.out]).toEqual([
      0,
      expect.stringContaining('usage: botflow event send <name> --to'),
    ]);
  });

  it.runIf(pgUp)('stores an event in PostgreSQL (--database-url)', async () => {
    const fresh = await migratedDatabase();
    const pg = await openPostgres({ url: fresh.url });
    try {
      const r = await run(
        'send',
        'order_delivered',
        '--to',
        'conv:u:5',
        '--key',
        'D-1',
        '--database-url',
        fresh.url,
      );
      expect(r).toMatchObject({ code: 0, err: '' });
      expect(r.out).not.toContain(fresh.url);
      expect(
        (await run('send', 'order_delivered', '--to', 'user:5', '--key', 'D-1', '--database-url', fresh.url))
          .out,
      ).toContain('stored before');
      const { rows } = await pg.pool.query(
        "SELECT conversation_key, dedupe_key, status FROM inbox WHERE kind = 'event'",
      );
      expect(rows).toEqual([
        { conversation_key: 'u:5', dedupe_key: 'e:order_delivered:D-1', status: 'pending' },
      ]);
    } finally {
      await pg.close();
      await fresh.drop();
    }
  });
});

describe('botflow event send --url to a running endpoint', () => {
  const KEY = 'cli_events_key_0123456789';
  let db: ReturnType<typeof openDatabase>;
  let app: ReturnType<typeof buildEventsServer>;
  let url: string;
  beforeAll(async () => {
    db = openDatabase({ path: join(dir, 'served.db') });
    app = buildEventsServer({ sender: appEventSender({ db, conversationKey: 'user-in-chat' }), keys: [KEY] });
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/events`;
  });
  afterAll(async () => {
    await app.close();
    db.close();
  });

  it('posts with the key; a wrong key is exit 1, an invalid event exit 2 with its problems', async () => {
    const ok = await run(
      'send',
      'order_shipped',
      '--to',
      'user:3',
      '--payload',
      '{"carrier":"DHL"}',
      '--url',
      url,
      '--events-key',
      KEY,
    );
    expect(ok).toMatchObject({ code: 0, out: expect.stringMatching(/^event order_shipped stored for u:3/) });
    const wrong = await run(
      'send',
      'order_shipped',
      '--to',
      'user:3',
      '--url',
      url,
      '--events-key',
      'cli_events_key_wrong_00000',
    );
    expect([wrong.code, wrong.err]).toEqual([1, expect.stringContaining('401 BOTFLOW_EVENTS_UNAUTHORIZED')]);
    expect(wrong.err).not.toContain('cli_events_key_wrong');
    const invalid = await run(
      'send',
      'order_shipped',
      '--to',
      'user:3',
      '--key',
      'k'.repeat(201),
      '--url',
      url,
      '--events-key',
      KEY,
    );
    expect([invalid.code, invalid.err]).toEqual([
      2,
      expect.stringContaining('key: a non-empty string of at most 200'),
    ]);
    vi.stubEnv('BOTFLOW_EVENTS_KEY', KEY);
    const fromEnv = await run('send', 'order_delivered', '--to', 'user:3', '--url', url);
    vi.unstubAllEnvs();
    expect(fromEnv.code).toBe(0);
    const down = await run(
      'send',
      'x',
      '--to',
      'user:3',
      '--url',
      'http://127.0.0.1:9/events',
      '--events-key',
      KEY,
    );
    expect([down.code, down.err]).toEqual([1, expect.stringContaining('no answer from')]);
    expect(rowsOf(join(dir, 'served.db')).map((r) => r.dedupe.split(':')[1])).toEqual([
      'order_shipped',
      'order_delivered',
    ]);
  });
});
