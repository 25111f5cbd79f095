/**
 * The idle signal that "nothing more happens" asserts wait for (test/support/idle.ts): it holds while the
 * store has work in hand and names what is open when it gives up; it resolves once the work is done.
 * Read from the bot's SQLite file by a connection of its own, as the e2e tests read a child's database.
 */
import { expect, it } from 'vitest';
import { updateEntry } from '../../src/inbox/update-entry.ts';
import { tempDatabase } from '../intake/helpers.ts';
import { untilSqliteIdle } from '../support/idle.ts';

it('waits while an inbox row is pending, names it when it gives up, and resolves once it is handled', async () => {
  const env = tempDatabase();
  try {
    await untilSqliteIdle(env.path, 1_000); // an empty store is idle
    env.inbox.append([updateEntry(JSON.stringify({ update_type: 'bot_started', timestamp: 1, chat_id: 5 }))]);
    await expect(untilSqliteIdle(env.path, 200)).rejects.toThrow(
      /waiting for the bot to be idle .*still open: \{"inbox":1,"outbox":0,"tasks":0\}/,
    );
    const waiting = untilSqliteIdle(env.path, 10_000);
    env.db.prepare("UPDATE inbox SET status = 'done'").run();
    await waiting;
  } finally {
    env.cleanup();
  }
});
