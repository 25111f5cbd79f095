/**
 * The embedded sandbox's own bot token in the playground's top bar (loopback only): a developer copies it
 * to validate or sign mini-app initData against the dev bot. Saves test-results/playground-token.png;
 * `BOTFLOW_UPDATE_SCREENSHOT=1` also copies it to docs/playground-token.png.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { shotOf, usePlayground } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

const pg = usePlayground(WAIT.timeout);

describe("the sandbox bot's token", () => {
  it('shows in the top bar and copies whole; /_sandbox/info and the start line agree', async () => {
    const { page, botflow, pageErrors } = pg;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(botflow.webChatUrl).origin,
    });
    const answer = await fetch(new URL('/_sandbox/info', botflow.webChatUrl));
    const info = (await answer.json()) as { token: string };
    expect(info.token).toMatch(/^sandbox-token-/);
    const chip = page.getByRole('button', { name: "Copy the sandbox bot's token" });
    await chip.waitFor(WAIT);
    expect(await chip.textContent()).toContain(info.token.slice(0, 18));
    mkdirSync(RESULTS, { recursive: true });
    await shotOf(page.locator('header.topbar'), join(RESULTS, 'playground-token.png'));
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT)
      copyFileSync(join(RESULTS, 'playground-token.png'), join(REPO, 'docs', 'playground-token.png'));
    await chip.click();
    await chip.getByText('copied ✓').waitFor(WAIT);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(info.token);
    expect(botflow.output()).toContain(
      `sandbox bot token (local, new at each start; mini-apps: docs/mini-apps.md): ${info.token}`,
    );
    expect(pageErrors).toEqual([]);
  });
});
