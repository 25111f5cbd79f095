// The campaign runner's look at the outbox (issue 35): calls not yet answered, interactive and bulk
// counted apart, on both databases. It read a column the query never returned, so the runner saw an
// empty outbox: it never held back for waiting replies, nor for its own unsent sends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteCampaigns } from '../../src/store/campaigns/sqlite.ts';
import { openDatabase } from '../../src/store/database.ts';
import { pgCampaigns } from '../../src/store/postgres/campaigns.ts';
import { openPostgres, partitionOf } from '../../src/store/postgres/database.ts';
import { migratedDatabase, postgresAvailable } from '../support/postgres.ts';

const pgUp = await postgresAvailable();
/** [priority, status] of the rows each test writes: 2 interactive and 3 bulk not yet answered. */
const ROWS: [string, string][] = [
  ['reply', 'pending'],
  ['callback', 'sending'],
  ['reply', 'done'],
  ['bulk', 'pending'],
  ['bulk', 'pending'],
  ['bulk', 'sending'],
  ['bulk', 'done'],
];

describe('the campaigns store reads the outbox backlog', () => {
  it('on SQLite', () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-backlog-'));
    const db = openDatabase({ path: join(dir, 'bot.db') });
    const insert = db.prepare(
      "INSERT INTO outbox (conversation_key, revision, seq, order_key, chat_id, kind, op, args, priority, idempotency_key, status, created_at) VALUES ('u:1', 1, ?, 'chat:1', 1, 'api', 'sendMessage', '{}', ?, ?, ?, 0)",
    );
    for (const [i, [priority, status]] of ROWS.entries()) insert.run(i, priority, `k${i}`, status);
    expect(sqliteCampaigns(db).outboxBacklog()).toEqual({ interactive: 2, bulk: 3 });
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!pgUp)('on PostgreSQL', async () => {
    const fresh = await migratedDatabase();
    const pg = await openPostgres({ url: fresh.url });
    try {
      for (const [i, [priority, status]] of ROWS.entries())
        await pg.pool.query(
          'INSERT INTO outbox (partition, conversation_key, revision, seq, order_key, chat_id, kind, op, args, priority, ' +
            "idempotency_key, status, created_at) VALUES ($1, 'u:1', 1, $2, 'chat:1', 1, 'api', 'sendMessage', '{}', $3, $4, $5, 0)",
          [partitionOf('u:1'), i, priority, `k${i}`, status],
        );
      expect(await pgCampaigns(pg.pool).outboxBacklog()).toEqual({ interactive: 2, bulk: 3 });
    } finally {
      await pg.close();
      await fresh.drop();
    }
  });
});
