/**
 * Tasks in the playground: the booking example asks the restaurant's (fake) system for free tables; the
 * chat shows the free times as buttons and the side panel lists the task with its input and result, and
 * the history names it in designer words.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bookingChat, openDay, shotOf, usePlayground } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

const pg = usePlayground(WAIT.timeout);

describe('tasks in the playground', () => {
  it('shows the free times from the find_slots task, and the task in the side panel', async () => {
    const { page, pageErrors } = pg;
    const { chat, say } = await bookingChat(page, 'Tess', WAIT.timeout);
    await say(openDay(2));
    await chat.locator('.msg-bot', { hasText: 'For how many people?' }).waitFor();
    await say('4');
    await chat.locator('.msg-bot', { hasText: 'Looking for a free table…' }).waitFor();
    await chat.locator('.msg-bot', { hasText: 'At what time?' }).waitFor(WAIT);
    // The free times are buttons built from the task's result.
    await expect
      .poll(() => chat.getByRole('button', { name: /^\d\d:\d\d \(\d+ seats\)$/ }).count(), WAIT)
      .toBeGreaterThan(0);

    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    const tasks = panel.getByRole('region', { name: /^Tasks/ });
    await tasks.getByText('find_slots').waitFor(WAIT);
    await expect.poll(() => tasks.textContent(), WAIT).toContain('done');
    expect(await tasks.textContent()).toMatch(/input \{"day":"\d{4}-\d\d-\d\d","guests":4\}/);
    expect(await tasks.textContent()).toMatch(/result \[\{"time":/);
    await panel.getByText('task find_slots done').waitFor(WAIT);
    await expect.poll(() => tasks.textContent(), WAIT).toContain('attempts 1');
    // Nothing but elements under the panel: no stray "null" text under "Conversation Tess".
    const strayText = () =>
      panel.evaluate((el) =>
        Array.from(el.childNodes)
          .filter((n) => n.nodeType === Node.TEXT_NODE)
          .map((n) => n.textContent),
      );
    expect(await strayText()).toEqual([]);
    expect(await panel.locator('.panel-head').textContent()).not.toContain('null');

    mkdirSync(RESULTS, { recursive: true });
    await shotOf(tasks, join(RESULTS, 'playground-tasks.png'));
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT)
      copyFileSync(join(RESULTS, 'playground-tasks.png'), join(REPO, 'docs', 'playground-tasks.png'));
    expect(pageErrors).toEqual([]);
  });

  it('names the paged choices a person pressed by their labels in the history', async () => {
    const { page, pageErrors } = pg;
    const { chat, say } = await bookingChat(page, 'Pia', WAIT.timeout);
    await say(openDay(3));
    await chat.locator('.msg-bot', { hasText: 'For how many people?' }).waitFor();
    await say('2'); // every time has room for two: more than one page of six
    await chat.locator('.msg-bot', { hasText: 'At what time?' }).waitFor(WAIT);
    await chat.getByRole('button', { name: 'More ›' }).click();
    const slot = chat.getByRole('button', { name: /^2\d:\d\d \(\d+ seats\)$/ }).first();
    await slot.waitFor(WAIT);
    const label = (await slot.textContent())!.trim();
    await slot.click();
    await chat.locator('.msg-bot', { hasText: 'Anything else?' }).waitFor(WAIT);

    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    const history = panel.getByRole('region', { name: /^History/ });
    await history.getByText(`button "${label}"`).waitFor(WAIT);
    await history.getByText('turned the choices to page 2').waitFor(WAIT);
    expect(await history.textContent()).not.toMatch(/button #/);
    mkdirSync(RESULTS, { recursive: true });
    await shotOf(history, join(RESULTS, 'playground-paged-history.png'));
    expect(pageErrors).toEqual([]);
  });
});
