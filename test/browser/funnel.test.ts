/**
 * The funnel from the playground: three people try the sign-up (one gets an age refused and goes on to the
 * email, one cancels, one never answers), and the designer opens the funnel from the side panel's graph:
 * how many reached each step, who waits where, who stopped, the refused answers. A screenshot goes to
 * test-results/ (docs/ with BOTFLOW_UPDATE_SCREENSHOT).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { personChat, usePlayground } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

const pg = usePlayground(WAIT.timeout);

/** The cells of a step's row: reached, waiting, stopped, ended, refused, median (as shown). */
async function rowOf(board: Page, step: string): Promise<string[]> {
  const cells = board.locator(`tr[data-step="${step}"] td.num`);
  return (await cells.allTextContents()).map((t) => t.trim());
}

describe('the funnel', () => {
  it('opens from the graph and tells how far people got, where they wait or stopped, and the retries', async () => {
    const { page, pageErrors } = pg;
    const ann = await personChat(page, 'Ann', WAIT.timeout);
    await ann.say('Ann');
    await ann.chat.locator('.msg-bot', { hasText: 'How old are you?' }).waitFor(WAIT);
    await ann.say('old');
    await ann.chat.locator('.msg-bot', { hasText: 'like 27' }).first().waitFor(WAIT);
    await ann.say('30');
    await ann.chat.locator('.msg-bot', { hasText: 'Your email address?' }).waitFor(WAIT);
    const bo = await personChat(page, 'Bo', WAIT.timeout);
    await bo.say('/cancel');
    await bo.chat.locator('.msg-bot', { hasText: 'Sign-up cancelled' }).waitFor(WAIT);
    await personChat(page, 'Cy', WAIT.timeout);

    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    const [board] = await Promise.all([
      page.context().waitForEvent('page'),
      panel.getByRole('link', { name: 'funnel' }).click(),
    ]);
    await board.waitForLoadState();
    expect(await board.title()).toBe('signup: funnel');
    const signup = board.getByRole('region', { name: 'Funnel of signup' });
    expect(await signup.locator('h2').textContent()).toBe('signup 3 conversations · 1 reached an end (33%)');
    // The steps in the order of the flow file, every one listed (reached or not).
    const steps = await signup
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-step')));
    expect(steps.slice(0, 4)).toEqual(['ask_name', 'ask_age', 'ask_email', 'confirm']);
    expect(steps).toContain('cancelled');
    expect((await rowOf(board, 'ask_name')).slice(0, 4)).toEqual(['3 100%', '1', '0', '0']);
    expect((await rowOf(board, 'ask_age')).slice(0, 5)).toEqual(['1 33%', '0', '0', '0', '1 (1 person)']);
    expect((await rowOf(board, 'ask_email')).slice(0, 2)).toEqual(['1 33%', '1']);
    expect((await rowOf(board, 'cancelled')).slice(0, 4)).toEqual(['1 33%', '0', '0', '1']);
    expect((await rowOf(board, 'confirm'))[0]).toBe('0 0%');
    // A step's name leads to it on the storyboard.
    expect(await board.locator('tr[data-step="ask_age"] th a').getAttribute('href')).toBe(
      '/_inspector/storyboard?flow=signup#signup--ask_age',
    );

    mkdirSync(RESULTS, { recursive: true });
    await board.setViewportSize({ width: 1100, height: 620 });
    await board.screenshot({ path: join(RESULTS, 'playground-funnel.png') });
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT)
      copyFileSync(join(RESULTS, 'playground-funnel.png'), join(REPO, 'docs', 'playground-funnel.png'));

    // The period links narrow it; the page also answers as JSON (what `botflow stats --json` prints).
    await board.getByRole('link', { name: '24 hours' }).click();
    await board.waitForLoadState();
    expect(new URL(board.url()).search).toBe('?flow=signup&days=1');
    expect(await signup.locator('h2').textContent()).toContain('3 conversations');
    const json = await board.evaluate(async () =>
      (await fetch('/_inspector/funnel?flow=signup&format=json')).json(),
    );
    expect(json).toMatchObject([{ flowId: 'signup', sessions: 3, ended: 1 }]);
    await board.close();
    expect(pageErrors).toEqual([]);
  });
});
