/** The funnel page's texts nothing took: a column where a flow has some, the samples under their step, escaped. */
import { describe, expect, it } from 'vitest';
import { funnelOf } from '../../src/runtime/funnel.ts';
import { funnelHtml } from '../../src/runtime/funnel-page.ts';
import type { StepLogRow } from '../../src/store/step-log.ts';

const line = (step: string, event: StepLogRow['event'], at: number, sample?: string): StepLogRow => ({
  conversationKey: 'u:1',
  sessionRevision: 1,
  stepInstance: 1,
  flowId: 'cafe',
  step,
  event,
  n: 1,
  at,
  sessionActive: true,
  ...(sample === undefined ? {} : { sample }),
});

describe('the funnel page', () => {
  it('shows the unrecognised count and the latest samples under the step, as text', () => {
    const html = funnelHtml(
      funnelOf([
        line('hello', 'enter', 0),
        line('hello', 'unrecognised', 1, '<script>alert("x")</script>'),
        line('hello', 'unrecognised', 2, 'wifi\npassword?'),
      ]),
    );
    expect(html).toContain('<th scope="col" class="num">typed, not understood</th>');
    expect(html).toMatch(/<tr data-step="hello">.*<td class="num">2<\/td><td class="num">–<\/td><\/tr>/);
    expect(html).toContain('<q>wifi password?</q> <q>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</q>');
    expect(html).not.toContain('<script>alert');
  });

  it('has no such column where nobody typed anything it did not take', () => {
    const html = funnelHtml(funnelOf([line('hello', 'enter', 0)]));
    expect(html).not.toContain('typed, not understood');
    expect(html).not.toContain('class="samples"');
  });
});
