/**
 * Issue 29: "Send event" in the playground's side panel sends an external event to the conversation shown,
 * as POST /events would: the receipt (or why it was refused) shows inline, a repeated key is not sent again.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { personChat, playgroundDatabases, shotOf, usePlaygroundOn } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');

describe.each(await playgroundDatabases())('send event on %s', (kind) => {
  const pg = usePlaygroundOn(kind, 30_000);

  it('sends an event to the person shown; refusals and duplicates show inline', async () => {
    const { page, pageErrors } = pg;
    await personChat(page, 'Eve');
    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    const section = panel.getByRole('region', { name: 'Send event' });
    const userId = Number(
      await page.evaluate(
        () => document.querySelector('[data-user-id]')?.getAttribute('data-user-id') ?? 'NaN',
      ),
    );

    // A step while the person types holds the panel's redraw (it would replace the field under the cursor,
    // as the 5 s refresh on PostgreSQL did between a fill and a click): the focus and the letters stay.
    const eventName = section.getByLabel('Event name');
    await eventName.click();
    await page.keyboard.type('order');
    await page.evaluate(async (id) => {
      await fetch('/_sandbox/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user_id: id, text: 'Eve' }),
      });
    }, userId);
    await page.locator('[data-held]').waitFor({ state: 'attached' });
    const historyHeld = await panel.getByText(/History \(\d+\)/).textContent();
    await page.keyboard.type(' shipped');
    expect(await eventName.inputValue()).toBe('order shipped');
    expect(await eventName.evaluate((el) => el === document.activeElement)).toBe(true);
    // Once the focus leaves the panel, it redraws what it held back (the step the message made).
    await page.getByRole('article', { name: 'Chat of Eve' }).click({ position: { x: 5, y: 5 } });
    await page.locator('[data-held]').waitFor({ state: 'detached' });
    await expect.poll(() => panel.getByText(/History \(\d+\)/).textContent()).not.toBe(historyHeld);

    await section.getByRole('button', { name: 'Send event' }).click();
    await expect.poll(() => section.getByRole('alert').textContent()).toContain('name "order shipped"');

    await section.getByLabel('Event name').fill('order_shipped');
    await section.getByLabel('Payload (JSON)').fill('{"carrier": ');
    await section.getByRole('button', { name: 'Send event' }).click();
    await expect.poll(() => section.getByRole('alert').textContent()).toContain('The payload is not JSON');

    await section.getByLabel('Payload (JSON)').fill('{"carrier": "DHL"}');
    await section.getByLabel('Idempotency key (optional)').fill('A-17');
    await section.getByRole('button', { name: 'Send event' }).click();
    const sent = section.getByRole('status');
    await expect.poll(() => sent.textContent()).toMatch(/^Sent order_shipped to u:\d+ \(inbox row \d+\)\.$/);
    if (Number.isSafeInteger(userId)) expect(await sent.textContent()).toContain(`u:${userId}`);
    // What was typed survives the panel's redraws.
    expect(await section.getByLabel('Payload (JSON)').inputValue()).toBe('{"carrier": "DHL"}');
    mkdirSync(RESULTS, { recursive: true });
    await shotOf(
      section,
      join(RESULTS, `playground-send-event${kind === 'postgres' ? '-postgres' : ''}.png`),
    );
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT && kind === 'sqlite')
      copyFileSync(
        join(RESULTS, 'playground-send-event.png'),
        join(REPO, 'docs', 'playground-send-event.png'),
      );

    await section.getByRole('button', { name: 'Send event' }).click();
    await expect
      .poll(() => sent.textContent())
      .toBe('Not sent again: order_shipped with key "A-17" was sent before.');
    expect(pageErrors).toEqual([]);
  });
});
