// A row that becomes visible below rows already handled (issue 28, found by the dispatcher-kills e2e): on
// PostgreSQL an inbox id is taken when a transaction inserts it, not when it commits, and several processes
// commit at once. The engine handles such a row as soon as it is visible, instead of skipping it until the
// next restart of its batch loop while the same conversation's later rows are answered.
import { describe, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { PgInbox } from '../../src/store/postgres/inbox.ts';
import { useClusterHarness } from '../support/cluster-harness.ts';
import { eventually } from '../support/eventually.ts';
import { postgresAvailable } from '../support/postgres.ts';

const up = await postgresAvailable();

const FLOW = `flow: hello
start: hi
triggers: [{ bot_started: true }]
steps:
  hi: { type: end, say: Hello. }
`;

function started(userId: number) {
  const raw = {
    update_type: 'bot_started',
    timestamp: Date.now(),
    chat_id: userId,
    user: { user_id: userId, first_name: 'P', is_bot: false, last_activity_time: Date.now() },
  };
  return updateEntry(JSON.stringify(raw), 'user-in-chat', raw);
}

describe.skipIf(!up)('inbox rows committed out of id order', () => {
  const cluster = useClusterHarness();

  it('are handled once visible, not skipped behind the rows above them', async () => {
    const compiled = compileSources(
      [{ file: 'hello.flow.yaml', source: FLOW }],
      defineRegistry({}),
      new Map(),
    );
    const engine = await cluster.start('a', { flows: compiled.flows });
    const pool = engine.pg.pool;
    const entries = new Map([9001, 9002].map((id) => [id, started(id)]));
    const status = async (userId: number) =>
      (
        await pool.query<{ status: string }>('SELECT status FROM inbox WHERE dedupe_key = $1', [
          entries.get(userId)!.dedupeKey,
        ])
      ).rows[0]?.status ?? 'absent';

    // A takes the lower id and commits late; B takes the next id and commits at once.
    const slow = await pool.connect();
    await slow.query('BEGIN');
    await new PgInbox(slow as never).append([entries.get(9001)!]);
    await new PgInbox(pool).append([entries.get(9002)!]);
    engine.engine.notify();
    await eventually('the later row to be handled', async () => (await status(9002)) === 'done', 10_000);
    await slow.query('COMMIT');
    slow.release();
    engine.engine.notify();
    await eventually('the earlier row to be handled', async () => (await status(9001)) === 'done', 5_000);
  });
});
