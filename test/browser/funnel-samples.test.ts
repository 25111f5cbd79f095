/**
 * The funnel page's samples of texts nothing took, drawn by a real browser (Debian's chromium): the column
 * and the texts under their step, long ones wrapped inside the table. A screenshot goes to test-results/
 * (docs/ with BOTFLOW_UPDATE_SCREENSHOT).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { funnelOf } from '../../src/runtime/funnel.ts';
import { funnelHtml } from '../../src/runtime/funnel-page.ts';
import type { StepLogRow } from '../../src/store/step-log.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');

function rows(): StepLogRow[] {
  const out: StepLogRow[] = [];
  const said = [
    'do you have oat milk',
    'wifi password?',
    'opening hours',
    `${'a very long message '.repeat(10)}`,
  ];
  for (let i = 0; i < 12; i++) {
    const key = `u:${i}`;
    const base = {
      conversationKey: key,
      sessionRevision: 1,
      flowId: 'cafe',
      n: 1,
      sessionActive: i % 3 === 0,
    };
    out.push({ ...base, stepInstance: 1, step: 'hello', event: 'enter', at: i * 1000 });
    if (i < 8)
      out.push({
        ...base,
        stepInstance: 1,
        step: 'hello',
        event: 'unrecognised',
        at: i * 1000 + 10,
        sample: said[i % 4]!,
      });
    if (i % 3 !== 0)
      out.push({ ...base, stepInstance: 2, step: 'size', event: 'enter', at: i * 1000 + 4000 });
    if (i % 4 === 1)
      out.push({
        ...base,
        stepInstance: 2,
        step: 'size',
        event: 'unrecognised',
        at: i * 1000 + 4100,
        sample: 'medium please',
      });
  }
  return out;
}

describe('the funnel page, in a browser', () => {
  it('shows what people typed that nothing took under the step', async () => {
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 520 } });
      await page.setContent(funnelHtml(funnelOf(rows())));
      const hello = page.locator('tr[data-samples="hello"] q');
      expect(await hello.allTextContents()).toEqual([
        `${'a very long message '.repeat(10)}`,
        'opening hours',
        'wifi password?',
        'do you have oat milk',
      ]);
      expect(await page.locator('tr[data-samples="size"] q').allTextContents()).toEqual(['medium please']);
      // The long sample wraps: the table is no wider than the page.
      const width = await page.evaluate(() => document.querySelector('table')!.getBoundingClientRect().width);
      expect(width).toBeLessThanOrEqual(1100);
      mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: join(RESULTS, 'playground-funnel-samples.png') });
      if (process.env.BOTFLOW_UPDATE_SCREENSHOT)
        copyFileSync(
          join(RESULTS, 'playground-funnel-samples.png'),
          join(REPO, 'docs', 'playground-funnel-samples.png'),
        );
    } finally {
      await browser.close();
    }
  });
});
