/**
 * Calls that failed for good, in the playground's side panel: listed, sent again from the page, and then
 * seen by the person. The failed call is written to the running bot's database with the store, as the
 * dispatcher leaves one when the platform refuses it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.ts';
import { OutboxStore } from '../../src/store/outbox.ts';
import { openPostgres, partitionOf } from '../../src/store/postgres/database.ts';
import { playgroundDatabases, usePlaygroundOn } from './botflow-process.ts';

const RESULTS = fileURLToPath(new URL('../../test-results/', import.meta.url));
const WAIT = { timeout: 30_000 };

describe.each(await playgroundDatabases())('failed calls in the playground on %s', (kind) => {
  const pg = usePlaygroundOn(kind, WAIT.timeout);

  it('lists a call that failed for good, sends it again on a click, and the person sees it', async () => {
    const { page, botflow, pageErrors } = pg;
    await page.getByLabel("New person's name").fill('Dana');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const chat = page.getByRole('article', { name: 'Chat of Dana' });
    await chat.waitFor();
    await chat.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => chat.locator('.chat-head .pill').textContent(), WAIT).toBe('active');
    const users = (await (await fetch(new URL('_sandbox/users', botflow.webChatUrl))).json()) as {
      users: { user_id: number; first_name: string }[];
    };
    const dana = users.users.find((u) => u.first_name === 'Dana');
    expect(dana).toBeDefined();

    if (kind === 'postgres') await failedOnPostgres(pg.databaseUrl!, dana!.user_id);
    else {
      const db = openDatabase({ path: join(botflow.dir, '.botflow', 'sandbox.db') });
      try {
        const outbox = new OutboxStore(db);
        // In one transaction, so the running dispatcher never sees it pending.
        const id = db.transaction(() => {
          outbox.insert({
            conversationKey: `u:${dana!.user_id}`,
            revision: 0,
            seq: 1,
            orderKey: `user:${dana!.user_id}`,
            chatId: null,
            kind: 'api',
            op: 'sendMessage',
            args: JSON.stringify({ user_id: dana!.user_id, text: 'A reply the platform refused earlier' }),
            ref: null,
            priority: 'reply',
            createdAt: Date.now(),
            idempotencyKey: 'playground-dead-letter',
          });
          const row = outbox.open(0, 10_000).find((r) => r.idempotencyKey === 'playground-dead-letter')!;
          outbox.claim(row.id, Date.now());
          outbox.finish(
            row.id,
            { status: 'failed', error: 'chat.denied: the person blocked the bot' },
            Date.now(),
          );
          return row.id;
        })();
        expect(outbox.get(id)?.status).toBe('failed');
      } finally {
        db.close();
      }
    }

    // Written behind the page's back: a reload shows it (a failure seen by the engine refreshes the panel).
    await page.reload();
    await page.getByRole('status', { name: 'Connection' }).getByText('live').waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Dana' }).first().click();
    const failed = page.getByRole('region', { name: 'Failed calls' });
    await failed.getByText('chat.denied: the person blocked the bot').waitFor();
    await expect.poll(() => failed.getByRole('heading').textContent(), WAIT).toBe('Failed calls (1)');
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({
      path: join(RESULTS, `dead-letters${kind === 'postgres' ? '-postgres' : ''}.png`),
    });

    await failed.getByRole('button', { name: 'send again' }).click();
    await chat.getByText('A reply the platform refused earlier').waitFor();
    await failed.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });
});

/** The same failed call in the PostgreSQL database, as a dispatcher leaves it. */
async function failedOnPostgres(url: string, userId: number): Promise<void> {
  const pg = await openPostgres({ url, migrate: false });
  try {
    const key = `u:${userId}`;
    await pg.pool.query(
      'INSERT INTO outbox (partition, conversation_key, revision, seq, order_key, chat_id, kind, op, args, ' +
        "priority, idempotency_key, status, attempts, error, created_at, sent_at, finished_at) VALUES ($1, $2, 0, 1, $3, NULL, 'api', " +
        "'sendMessage', $4, 'reply', 'playground-dead-letter', 'failed', 1, $5, $6, $6, $6)",
      [
        partitionOf(key),
        key,
        `user:${userId}`,
        JSON.stringify({ user_id: userId, text: 'A reply the platform refused earlier' }),
        'chat.denied: the person blocked the bot',
        Date.now(),
      ],
    );
  } finally {
    await pg.close();
  }
}
