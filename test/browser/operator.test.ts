/**
 * Issue 30: the playground plays the operator. The operators' chat the support flow names is listed beside
 * the people; the page acts as its "Operator" member through the sandbox's control API (real updates to the
 * bot): Take, replies to the bot's relayed messages (text and a photo), `/set` and `/done`.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { personChat, playgroundDatabases, usePlaygroundOn } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
// The operator's photo (a small PNG of the repository's docs).
const PNG = readFileSync(join(REPO, 'docs', 'playground-clock.png'));

describe.each(await playgroundDatabases())('the operator in the playground on %s', (kind) => {
  const pg = usePlaygroundOn(kind, 30_000);

  it('plays a whole handoff: Take, replies with text and a photo, /set and /done', async () => {
    const { page, pageErrors } = pg;
    const { chat: eve, say } = await personChat(page, 'Eve');
    await say('/cancel');
    await say('/support');
    await eve.locator('.msg-bot').nth(2).waitFor();
    await say('/operator');
    await eve
      .locator('.msg-bot', { hasText: 'You are number 1 in the queue: an operator will answer' })
      .waitFor();

    const list = page.getByRole('region', { name: 'Play the operator' });
    await list.getByRole('button', { name: /Play the operator in Operators \(-1000\)/ }).click();
    const ops = page.getByRole('article', { name: "Operators' chat Operators" });
    const request = ops.locator('.msg-bot', { hasText: 'asks for an operator' });
    await request.getByRole('button', { name: 'Take' }).click();
    await expect.poll(() => request.textContent()).toContain('Taken by Operator');
    await eve.locator('.msg-bot', { hasText: 'Operator joined the conversation.' }).waitFor();

    await say('My screen is broken');
    const relayed = ops.locator('.msg-bot', { hasText: 'My screen is broken' });
    await relayed.getByRole('button', { name: /^Reply to:/ }).click();
    await ops.getByRole('group', { name: 'Replying to' }).getByText('My screen is broken').waitFor();
    const box = ops.getByRole('textbox', { name: 'Message' });
    await box.fill('Which model is it?');
    await box.press('Enter');
    await eve.locator('.msg-bot', { hasText: 'Which model is it?' }).waitFor();
    // The reply is shown as one, and is for one message only.
    await ops.locator('.msg-me .msg-quote', { hasText: 'My screen is broken' }).waitFor();
    expect(await ops.getByRole('group', { name: 'Replying to' }).isHidden()).toBe(true);

    await relayed.getByRole('button', { name: /^Reply to:/ }).click();
    await ops
      .getByLabel('File to send')
      .setInputFiles({ name: 'how-to.png', mimeType: 'image/png', buffer: PNG });
    await eve.locator('.msg-bot img').waitFor();
    await ops.locator('.msg-me img').waitFor();

    await relayed.getByRole('button', { name: /^Reply to:/ }).click();
    await box.fill('/set description Broken screen, model X2');
    await box.press('Enter');
    await relayed.getByRole('button', { name: /^Reply to:/ }).click();
    await box.fill('/done');
    await box.press('Enter');
    await eve.locator('.msg-bot', { hasText: 'Broken screen, model X2' }).waitFor();
    await expect.poll(() => eve.locator('.msg-bot').last().textContent()).toContain('Send this request?');
    await eve.getByRole('group', { name: 'Buttons' }).getByRole('button', { name: 'Send' }).last().waitFor();

    mkdirSync(RESULTS, { recursive: true });
    const shot = join(RESULTS, `playground-operator${kind === 'postgres' ? '-postgres' : ''}.png`);
    await page.screenshot({ path: shot });
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT && kind === 'sqlite')
      copyFileSync(shot, join(REPO, 'docs', 'playground-operator.png'));
    expect(pageErrors).toEqual([]);
  });
});
