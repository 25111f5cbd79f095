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

  it("draws each step as its kind says: the server's shape, its label in the tooltip", async () => {
    const { page, pageErrors } = pg;
    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    const graph = panel.getByRole('region', { name: 'Graph' });
    const node = (step: string) => graph.locator(`g.node[data-step="${step}"]`);
    await node('ask_name').waitFor(WAIT);
    expect(await node('ask_name').getAttribute('data-kind')).toBe('input');
    expect(await node('ask_name').getAttribute('data-shape')).toBe('rect');
    expect(await node('ask_name').locator('title').textContent()).toBe('ask_name (question)');
    expect(await node('done').getAttribute('data-shape')).toBe('stadium');
    expect(await node('done').locator('rect.inner').count()).toBe(1);
    // A called flow's block is no step of the file: drawn as before.
    expect(await node('__call_help').getAttribute('data-kind')).toBeNull();
    expect(await node('__call_help').getAttribute('data-shape')).toBe('stadium');

    // Every shape a kind may name is drawn as an outline of its own, as wide as its node.
    // (A string, so that vitest leaves the page's own dynamic import alone.)
    const drawn = await page.evaluate(`(async () => {
      const { drawGraph } = await import('/_web/graph.js');
      const shapes = ['stadium', 'rect', 'hexagon', 'subroutine', 'parallelogram', 'cloud'];
      const nodes = shapes.map((shape) => ({
        id: 's_' + shape, final: false, compound: false, kind: { type: 'x', shape, label: shape },
      }));
      const edges = nodes.slice(1).map((n, i) => ({ from: nodes[i].id, to: n.id, label: '' }));
      const el = drawGraph({ initial: nodes[0].id, nodes, edges }, undefined);
      document.body.append(el);
      const out = [...el.querySelectorAll('g.node')].map((g) => {
        const outline = g.querySelector('.outline');
        return {
          shape: g.getAttribute('data-shape'),
          tag: outline.tagName,
          wide: outline.getBBox().width > 60,
          bars: g.querySelectorAll('.bar').length,
        };
      });
      el.remove();
      return out;
    })()`);
    expect(drawn).toEqual([
      { shape: 'stadium', tag: 'rect', wide: true, bars: 0 },
      { shape: 'rect', tag: 'rect', wide: true, bars: 0 },
      { shape: 'hexagon', tag: 'path', wide: true, bars: 0 },
      { shape: 'subroutine', tag: 'rect', wide: true, bars: 1 },
      { shape: 'parallelogram', tag: 'path', wide: true, bars: 0 },
      { shape: 'stadium', tag: 'rect', wide: true, bars: 0 },
    ]);
    expect(pageErrors).toEqual([]);
  });
});
