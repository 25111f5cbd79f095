/**
 * "Start at a step": a designer puts a person straight onto the sign-up summary with chosen answers; the
 * summary is sent to the chat as the dialog would have sent it, and its reminder is armed. What they chose
 * survives the panel's redraws while the conversation moves on.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { playgroundDatabases, shotOf, usePlaygroundOn } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

describe.each(await playgroundDatabases())('start at a step on %s', (kind) => {
  const pg = usePlaygroundOn(kind, WAIT.timeout);

  it('sends the step as the dialog would, with the chosen variables, and arms its reminder', async () => {
    const { page, pageErrors } = pg;
    await page.getByLabel("New person's name").fill('Kim');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const chat = page.getByRole('article', { name: 'Chat of Kim' });
    await chat.getByRole('button', { name: 'Start' }).click();
    await chat.locator('.msg-bot', { hasText: 'What is your name?' }).waitFor();
    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    const jump = panel.getByRole('region', { name: 'Start at a step' });
    await jump.getByLabel('Flow').selectOption('signup');
    await jump.getByLabel('Step').selectOption('confirm');
    await jump.getByLabel('Variables (JSON)').fill('{"name": "Kim", "age": 41, "email": "kim@example.org"}');
    mkdirSync(RESULTS, { recursive: true });
    await shotOf(jump, join(RESULTS, `playground-jump${kind === 'postgres' ? '-postgres' : ''}.png`));
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT && kind === 'sqlite')
      copyFileSync(join(RESULTS, 'playground-jump.png'), join(REPO, 'docs', 'playground-jump.png'));
    // The conversation moves on while the designer has chosen (the panel redraws on each step, and every
    // 5 s on PostgreSQL): what they chose stays.
    await chat.getByRole('textbox', { name: 'Message' }).fill('Kim');
    await chat.getByRole('textbox', { name: 'Message' }).press('Enter');
    await expect
      .poll(() => panel.getByLabel('Current step', { exact: true }).textContent(), WAIT)
      .toBe('ask_age');
    expect(await jump.getByLabel('Step').inputValue()).toBe('confirm');
    expect(await jump.getByLabel('Variables (JSON)').inputValue()).toContain('kim@example.org');
    await jump.getByRole('button', { name: 'Start here' }).click();

    await chat.locator('.msg-bot', { hasText: 'Name: Kim' }).waitFor();
    await chat.getByRole('button', { name: '✅ Confirm' }).waitFor();
    await expect
      .poll(() => panel.getByLabel('Current step', { exact: true }).textContent(), WAIT)
      .toBe('confirm');
    await panel.getByRole('region', { name: 'Timers' }).getByText('confirm:remind:0').waitFor();
    await chat.getByRole('button', { name: '✅ Confirm' }).click();
    await chat.locator('.msg-bot', { hasText: 'Kim' }).last().waitFor();
    await expect
      .poll(() => panel.getByLabel('Current step', { exact: true }).textContent(), WAIT)
      .toBe('done');
    expect(pageErrors).toEqual([]);
  });
});
