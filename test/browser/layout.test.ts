/** Small things a designer notices: three chats at 1280 px, long names cut, "copy as Mermaid" answers. */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { usePlayground } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

const pg = usePlayground(WAIT.timeout);

describe('the playground at 1280 px', () => {
  it('shows three chats side by side without scrolling, and cuts a long name with an ellipsis', async () => {
    const { page } = pg;
    await page.setViewportSize({ width: 1280, height: 800 });
    const long = 'Maximilian-Alexander von Hohenzollern-Sigmaringen';
    for (const name of ['Ann', 'Bob', long]) {
      await page.getByLabel("New person's name").fill(name);
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('article', { name: `Chat of ${name}` }).waitFor();
    }
    const chats = page.getByRole('region', { name: 'Chats' });
    const { scrollWidth, clientWidth } = await chats.evaluate((el) => ({
      scrollWidth: el.scrollWidth,
      clientWidth: el.clientWidth,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    const title = page.getByRole('article', { name: `Chat of ${long}` }).locator('.chat-title strong');
    const cut = await title.evaluate((el) => ({
      overflow: getComputedStyle(el).textOverflow,
      wider: el.scrollWidth > el.clientWidth,
    }));
    expect(cut).toEqual({ overflow: 'ellipsis', wider: true });
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'playground-1280.png') });
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT)
      copyFileSync(join(RESULTS, 'playground-1280.png'), join(REPO, 'docs', 'playground-1280.png'));
  });

  it('says it copied the graph as Mermaid', async () => {
    const { page, botflow, pageErrors } = pg;
    const context = page.context();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(botflow.webChatUrl).origin,
    });
    const chat = page.getByRole('article', { name: 'Chat of Ann' });
    await chat.click();
    await chat.getByRole('button', { name: 'Start' }).click();
    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    await panel.getByRole('button', { name: 'copy as Mermaid' }).click();
    await panel.getByRole('button', { name: 'copied ✓' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('stateDiagram-v2');
    expect(pageErrors).toEqual([]);
  });
});
