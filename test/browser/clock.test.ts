/**
 * The playground's clock: a designer makes a one-hour reminder fire now, or lets a day pass for one
 * conversation, without waiting; the side panel lists the timers and the chat shows what they say.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { playgroundDatabases, shotOf, usePlaygroundOn } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

describe.each(await playgroundDatabases())("the playground's clock on %s", (kind) => {
  const pg = usePlaygroundOn(kind, WAIT.timeout);

  it('fires a reminder now, then lets a day pass: the idle timeout ends the sign-up', async () => {
    const { page, pageErrors } = pg;
    await page.getByLabel("New person's name").fill('Eve');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const chat = page.getByRole('article', { name: 'Chat of Eve' });
    await chat.getByRole('button', { name: 'Start' }).click();
    await chat.locator('.msg-bot', { hasText: 'What is your name?' }).waitFor();
    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    const timers = panel.getByRole('region', { name: 'Timers' });
    await timers.getByText('ask_name:remind:0').waitFor();
    await timers.getByText('ask_name:idle').waitFor();
    mkdirSync(RESULTS, { recursive: true });
    await shotOf(timers, join(RESULTS, `playground-clock${kind === 'postgres' ? '-postgres' : ''}.png`));
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT && kind === 'sqlite')
      copyFileSync(join(RESULTS, 'playground-clock.png'), join(REPO, 'docs', 'playground-clock.png'));

    // The reminder, an hour early.
    await timers
      .getByRole('listitem')
      .filter({ hasText: 'ask_name:remind:0' })
      .getByRole('button', { name: 'fire now' })
      .click();
    await chat.locator('.msg-bot', { hasText: 'Still there?' }).waitFor();
    await expect.poll(() => timers.getByText('ask_name:remind:0').count(), WAIT).toBe(0);

    // A day passes for Eve: the idle timeout fires and the flow goes to `abandoned`.
    await timers
      .getByRole('group', { name: 'Advance the clock' })
      .getByRole('button', { name: '+1 day' })
      .click();
    await chat.locator('.msg-bot', { hasText: 'I have put your sign-up aside' }).waitFor();
    await expect
      .poll(() => panel.getByLabel('Current step', { exact: true }).textContent(), WAIT)
      .toBe('abandoned');
    expect(pageErrors).toEqual([]);
  });
});
