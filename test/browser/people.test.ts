/**
 * People in the playground: each is added with the language their app reports, so every locale of a flow
 * can be tried; a person's conversation can be reset from the side panel.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { usePlayground } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

const pg = usePlayground(WAIT.timeout);

async function say(chatName: string, text: string) {
  const box = pg.page
    .getByRole('article', { name: `Chat of ${chatName}` })
    .getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

describe('people in the playground', () => {
  it("speaks each person's language: a person added with ru gets the Russian menu", async () => {
    const { page, pageErrors } = pg;
    await page.getByLabel("New person's name").fill('Олег');
    await page.getByLabel("New person's language").selectOption('ru');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const oleg = page.getByRole('article', { name: 'Chat of Олег' });
    await oleg.getByText('· ru').waitFor();
    await oleg.getByRole('button', { name: 'Start' }).click();
    await oleg.locator('.msg-bot').first().waitFor();
    await say('Олег', '/cancel'); // Start runs the sign-up wizard; its /cancel leaves it
    await say('Олег', '/settings');
    await oleg.locator('.msg-bot', { hasText: 'Настройки' }).waitFor();
    await oleg.getByRole('button', { name: 'Язык' }).waitFor();

    await page.getByLabel("New person's name").fill('Ann');
    await page.getByLabel("New person's language").selectOption('en');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const ann = page.getByRole('article', { name: 'Chat of Ann' });
    await ann.getByRole('button', { name: 'Start' }).click();
    await ann.locator('.msg-bot').first().waitFor();
    await say('Ann', '/cancel');
    await say('Ann', '/settings');
    await ann.locator('.msg-bot', { hasText: 'Settings' }).waitFor();
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'playground-people.png') });
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT)
      copyFileSync(join(RESULTS, 'playground-people.png'), join(REPO, 'docs', 'playground-people.png'));
    expect(pageErrors).toEqual([]);
  });

  it('resets a person: the conversation ends and the dialog is cleared', async () => {
    const { page, pageErrors } = pg;
    const ann = page.getByRole('article', { name: 'Chat of Ann' });
    await ann.click();
    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    await expect
      .poll(() => panel.getByLabel('Current step', { exact: true }).textContent(), WAIT)
      .toBe('main');
    await panel.getByRole('button', { name: 'Reset Ann' }).click();
    await expect.poll(() => panel.locator('.pill').first().textContent(), WAIT).toBe('stopped');
    await expect.poll(() => ann.locator('.msg-bot').count(), WAIT).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
