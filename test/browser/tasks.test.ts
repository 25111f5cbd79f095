/**
 * Tasks in the playground: the booking example asks the restaurant's (fake) system for free tables; the
 * chat shows the free times as buttons and the side panel lists the task with its input and result, and
 * the history names it in designer words.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bookingChat, usePlayground } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

const pg = usePlayground(WAIT.timeout);

describe('tasks in the playground', () => {
  it('shows the free times from the find_slots task, and the task in the side panel', async () => {
    const { page, pageErrors } = pg;
    const { chat, say } = await bookingChat(page, 'Tess', WAIT.timeout);
    await say('+2d');
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

    mkdirSync(RESULTS, { recursive: true });
    await tasks.screenshot({ path: join(RESULTS, 'playground-tasks.png') });
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT)
      copyFileSync(join(RESULTS, 'playground-tasks.png'), join(REPO, 'docs', 'playground-tasks.png'));
    expect(pageErrors).toEqual([]);
  });
});
