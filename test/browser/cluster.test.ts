/**
 * The playground of a bot on PostgreSQL (`botflow run` with database.url and the embedded sandbox): the
 * chat and the side panel work as on SQLite (conversation, graph, context, timers), and the panel adds
 * this instance's role (partitions, dispatcher, live instances) under its heading. Real server, real
 * chromium; a screenshot goes to test-results/.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, postgresAvailable } from '../support/postgres.ts';
import { usePlayground } from './botflow-process.ts';

const RESULTS = fileURLToPath(new URL('../../test-results/', import.meta.url));
const up = await postgresAvailable();

describe.skipIf(!up)('the playground of a bot on PostgreSQL', () => {
  let db: { url: string; drop(): Promise<void> } | undefined;
  const pg = usePlayground(30_000, async () => {
    db = await freshDatabase();
    return { BOTFLOW_DATABASE_URL: db.url };
  });
  afterAll(async () => {
    await pg.botflow?.stop();
    await db?.drop();
  });

  it('chats and inspects as on SQLite, with the instance’s role in the side panel', async () => {
    const { page, pageErrors } = pg;
    await page.getByLabel("New person's name").fill('Rosa');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const chat = page.getByRole('article', { name: 'Chat of Rosa' });
    await chat.waitFor();
    await chat.getByRole('button', { name: 'Start' }).click();
    await chat.locator('.msg-bot').first().waitFor();
    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    const role = panel.getByLabel('Instance', { exact: true });
    await role.waitFor();
    await expect.poll(() => role.textContent(), { timeout: 15_000 }).toContain('64 of 64 partitions');
    expect(await role.textContent()).toContain('dispatcher (sends for all)');
    expect(await role.textContent()).toContain('1 live instance');
    // The conversation reads as on SQLite: its flow, step, context and timers.
    await expect
      .poll(() => panel.getByLabel('Current step', { exact: true }).textContent(), { timeout: 15_000 })
      .toBe('ask_name');
    await panel.getByRole('region', { name: 'Timers' }).getByText('ask_name:remind:0').waitFor();
    await chat.getByRole('textbox', { name: 'Message' }).fill('Rosa');
    await chat.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect
      .poll(() => panel.getByLabel('Current step', { exact: true }).textContent(), { timeout: 15_000 })
      .toBe('ask_age');
    await panel.getByRole('region', { name: 'Context' }).getByText('Rosa').waitFor();
    await page.screenshot({ path: `${RESULTS}playground-postgres.png` });
    // The funnel reads the shared database: Rosa is counted at the sign-up's first step.
    const [funnel] = await Promise.all([
      page.context().waitForEvent('page'),
      panel.getByRole('link', { name: 'funnel' }).first().click(),
    ]);
    await funnel.waitForLoadState();
    expect(await funnel.locator('tr[data-step="ask_name"] td.num').first().textContent()).toBe('1 100%');
    await funnel.close();
    expect(pageErrors).toEqual([]);
  });
});
