/**
 * The side panel's graph as a designer reads a bigger flow: the conditions of `next` on its edges, what is
 * reachable from any step (global commands), and zoom and pan that survive the panel's redraws.
 * A screenshot goes to test-results/panel-graph-zoomed.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { personChat, usePlayground } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

const pg = usePlayground(WAIT.timeout);

describe('the graph', () => {
  it('shows next conditions and global commands, zooms and pans, and keeps its zoom across redraws', async () => {
    const { page, pageErrors } = pg;
    const { chat, say } = await personChat(page, 'Ann', WAIT.timeout);
    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    const graph = panel.getByRole('region', { name: 'Graph' });
    await expect
      .poll(() => panel.getByLabel('Current step', { exact: true }).textContent(), WAIT)
      .toBe('ask_name');

    // Conditions of `next` and of branches, as written in the flow file.
    expect(pageErrors).toEqual([]);
    await expect.poll(() => graph.locator('.edge-label').allTextContents(), WAIT).toContain('age < 18');
    expect(await graph.locator('.edge-label').allTextContents()).toContain('otherwise');
    expect(await graph.getByLabel('From any step').textContent()).toBe(
      'From any step: /cancel → cancelled · /help → ↪ help',
    );

    const svg = graph.locator('svg.graph');
    const box = graph.locator('.graph-box');
    const level = graph.locator('.zoom-level');
    const fitButton = graph.getByRole('button', { name: 'Fit the graph' });
    expect(await fitButton.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => level.textContent(), WAIT).toMatch(/^\d+%$/);
    const fitted = await svg.evaluate((el) => el.getBoundingClientRect().width);
    await graph.getByRole('button', { name: 'Zoom in' }).click();
    await graph.getByRole('button', { name: 'Zoom in' }).click();
    await graph.getByRole('button', { name: 'Zoom in' }).click();
    const zoomed = await svg.evaluate((el) => el.getBoundingClientRect().width);
    expect(zoomed / fitted).toBeGreaterThan(1.9);
    expect(await fitButton.getAttribute('aria-pressed')).toBe('false');
    const scrollable = await box.evaluate((el) => ({
      w: el.scrollWidth > el.clientWidth,
      h: el.scrollHeight > el.clientHeight,
    }));
    expect(scrollable).toEqual({ w: true, h: true });

    // Drag the background to pan.
    const area = (await box.boundingBox())!;
    const before = await box.evaluate((el) => [el.scrollLeft, el.scrollTop]);
    await page.mouse.move(area.x + area.width - 12, area.y + area.height - 12);
    await page.mouse.down();
    await page.mouse.move(area.x + area.width - 92, area.y + area.height - 72, { steps: 5 });
    await page.mouse.up();
    const after = await box.evaluate((el) => [el.scrollLeft, el.scrollTop]);
    expect(after[0]).toBeGreaterThan(before[0]! + 40);
    expect(after[1]).toBeGreaterThan(before[1]! + 30);

    // A new event redraws the panel: the zoom and the place stay.
    const shown = await level.textContent();
    await say('Ann');
    await chat.locator('.msg-bot', { hasText: 'How old are you?' }).waitFor(WAIT);
    await expect
      .poll(() => panel.getByLabel('Current step', { exact: true }).textContent(), WAIT)
      .toBe('ask_age');
    expect(await level.textContent()).toBe(shown);
    await expect.poll(() => box.evaluate((el) => el.scrollLeft), WAIT).toBeCloseTo(after[0]!, -1);

    mkdirSync(RESULTS, { recursive: true });
    await graph.screenshot({ path: join(RESULTS, 'panel-graph-zoomed.png') });

    // Ctrl + wheel zooms out around the pointer; "fit" shows the whole graph again.
    await page.mouse.move(area.x + area.width / 2, area.y + 40);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, 300);
    await page.keyboard.up('Control');
    await expect.poll(() => level.textContent(), WAIT).not.toBe(shown);
    await fitButton.click();
    expect(await fitButton.getAttribute('aria-pressed')).toBe('true');
    expect(await svg.evaluate((el) => el.getBoundingClientRect().width)).toBeCloseTo(fitted, 0);
    expect(pageErrors).toEqual([]);
  });
});
