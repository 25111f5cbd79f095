/**
 * The storyboard from the playground: a designer opens it from the side panel's graph, sees every step
 * of the flow as the person would (in each locale), follows a transition to the step it leads to, and
 * downloads the page as one HTML file. A screenshot goes to test-results/ (docs/ with
 * BOTFLOW_UPDATE_SCREENSHOT).
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bookingChat, usePlayground } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

const pg = usePlayground(WAIT.timeout);

describe('the storyboard', () => {
  it('opens from the graph, shows each step in each locale, follows transitions and downloads as HTML', async () => {
    const { page, pageErrors } = pg;
    await bookingChat(page, 'Noor', WAIT.timeout);
    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });

    mkdirSync(RESULTS, { recursive: true });
    // The panel redraws as the conversation's events arrive: wait for the step, then retry a detached shot.
    await expect
      .poll(() => panel.getByLabel('Current step', { exact: true }).textContent(), WAIT)
      .toBe('ask_day');
    await expect
      .poll(
        () =>
          panel
            .getByRole('region', { name: 'Graph' })
            .screenshot({ path: join(RESULTS, 'panel-graph.png'), timeout: 2000 })
            .then(
              () => true,
              () => false,
            ),
        WAIT,
      )
      .toBe(true);
    // The graph's edge labels never sit on one another (the booking graph has several near its end steps).
    const overlaps = await panel.locator('.graph').evaluate((graph) => {
      const boxes = Array.from(graph.querySelectorAll('.edge-label')).map((t) => {
        const b = (t as SVGGraphicsElement).getBBox();
        return { text: t.textContent, x0: b.x, x1: b.x + b.width, y0: b.y, y1: b.y + b.height };
      });
      const out: string[] = [];
      for (const [i, a] of boxes.entries())
        for (const b of boxes.slice(i + 1))
          if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1) out.push(`${a.text} / ${b.text}`);
      // …and none is cut off by the drawing's edges.
      const vb = (graph as SVGSVGElement).viewBox.baseVal;
      const clipped = boxes
        .filter((b) => b.x0 < vb.x || b.x1 > vb.x + vb.width || b.y0 < vb.y || b.y1 > vb.y + vb.height)
        .map((b) => b.text);
      return { count: boxes.length, out, clipped };
    });
    expect(overlaps.count).toBeGreaterThan(5);
    expect(overlaps.out).toEqual([]);
    expect(overlaps.clipped).toEqual([]);
    // A click on a step of the graph shows where it is written.
    await panel.locator('.graph g.node[data-step="ask_guests"]').click();
    const lines = panel.getByRole('figure', { name: 'Lines of step ask_guests' });
    await expect
      .poll(() => lines.locator('figcaption').textContent(), WAIT)
      .toMatch(/booking\.flow\.yaml:\d+$/);
    expect(await lines.locator('pre').textContent()).toMatch(/^ {2}ask_guests:\n {4}type: input/);
    await expect
      .poll(
        () =>
          panel
            .getByRole('region', { name: 'Graph' })
            .screenshot({ path: join(RESULTS, 'panel-step-source.png'), timeout: 2000 })
            .then(
              () => true,
              () => false,
            ),
        WAIT,
      )
      .toBe(true);
    const [board] = await Promise.all([
      page.context().waitForEvent('page'),
      panel.getByRole('link', { name: 'storyboard' }).click(),
    ]);
    await board.waitForLoadState();
    expect(await board.title()).toBe('booking: storyboard');
    const time = board.locator('article[data-step="ask_time"]');
    await expect.poll(() => time.locator('.frame h4').allTextContents()).toEqual(['en', 'ru']);
    expect(await time.locator('.frame[data-locale="ru"] .text').first().textContent()).toBe(
      'На какое время?',
    );
    expect(await time.locator('.frame[data-locale="en"] .button').count()).toBe(2);
    // The link opened on the step the person is at.
    expect(await board.evaluate(() => location.hash)).toBe('#booking--ask_day');

    await time.getByRole('link', { name: '→ ask_extras' }).click();
    expect(await board.evaluate(() => location.hash)).toBe('#booking--ask_extras');
    const extras = board.locator('article[data-step="ask_extras"]');
    expect(await extras.evaluate((el) => el.matches(':target'))).toBe(true);
    await board.screenshot({ path: join(RESULTS, 'playground-storyboard.png') });
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT)
      copyFileSync(
        join(RESULTS, 'playground-storyboard.png'),
        join(REPO, 'docs', 'playground-storyboard.png'),
      );

    const [download] = await Promise.all([
      board.waitForEvent('download'),
      board.getByRole('link', { name: 'Download as HTML' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('booking.storyboard.html');
    const saved = readFileSync((await download.path())!, 'utf8');
    expect(saved).toContain('id="booking--confirm"');
    expect(saved).not.toContain('Download as HTML');
    await board.close();
    expect(pageErrors).toEqual([]);
  });
});
