/**
 * The playground of a sandbox with several bots: a picker in the top bar, the person's chats per bot (a
 * dialog with each), people shared. With one bot there is no picker. Saves test-results/playground-bots.png;
 * `BOTFLOW_UPDATE_SCREENSHOT=1` also copies it to docs/playground-bots.png.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { webChat } from '../../src/sandbox/web/index.ts';
import { shotOf } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
});
afterAll(() => browser?.close());

async function open(sandbox: Sandbox, path = '/'): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.setDefaultTimeout(WAIT.timeout);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(new URL(path, sandbox.baseUrl).href);
  await page.getByRole('status', { name: 'Connection' }).getByText('live').waitFor();
  return { page, errors };
}

/** What a bot got by long polling so far (types and texts). */
async function polled(sandbox: Sandbox, token: string) {
  const res = await fetch(`${sandbox.baseUrl}/updates?timeout=0&marker=1`, {
    headers: { authorization: token },
  });
  const body = (await res.json()) as {
    updates: { update_type: string; chat_id?: number; message?: { body: { text?: string } } }[];
  };
  return body.updates.map((u) => `${u.update_type}${u.message ? `: ${u.message.body.text}` : ''}`);
}

/** The bot writes to the person by user id, through the Bot API with its own token. */
async function botSays(sandbox: Sandbox, token: string, userId: number, text: string) {
  const res = await fetch(`${sandbox.baseUrl}/messages?user_id=${userId}`, {
    method: 'POST',
    headers: { authorization: token, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(200);
}

describe('the playground with several bots', () => {
  it('picks a bot in the top bar; each bot has its own chat with the same person', async () => {
    const sandbox = await startSandbox({ limits: false, plugins: [webChat], bots: [{ name: 'Shop' }] });
    try {
      const weather = sandbox.addBot({ name: 'Weather' });
      const { page, errors } = await open(sandbox);
      const picker = page.getByRole('combobox', { name: 'Bot to chat with' });
      await picker.waitFor(WAIT);
      expect(await picker.locator('option').allTextContents()).toEqual([
        'Shop @shop_bot',
        'Weather @weather_bot',
      ]);
      expect(await picker.inputValue()).toBe(String(sandbox.bot.user_id));

      // Ann talks to Shop.
      await page.getByLabel("New person's name").fill('Ann');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      const chat = page.getByRole('article', { name: 'Chat of Ann' });
      await chat.getByRole('button', { name: 'Start' }).click();
      await chat.getByRole('textbox', { name: 'Message' }).fill('a lamp, please');
      await chat.getByRole('textbox', { name: 'Message' }).press('Enter');
      await expect
        .poll(() => polled(sandbox, sandbox.token), WAIT)
        .toEqual(['bot_started', 'message_created: a lamp, please']);
      const ann = (await sandbox.control.users()).users.find((u) => u.first_name === 'Ann')!;
      await botSays(sandbox, sandbox.token, ann.user_id, 'Lamps are on aisle 3');
      await chat.getByText('Lamps are on aisle 3').waitFor(WAIT);

      // The same Ann, with Weather: another chat, empty, and nothing of it reaches Shop.
      await picker.selectOption(String(weather.id));
      await page.waitForURL(/\?bot=/);
      await page.getByRole('status', { name: 'Connection' }).getByText('live').waitFor();
      await page.getByRole('button', { name: /Ann/ }).click();
      const weatherChat = page.getByRole('article', { name: 'Chat of Ann' });
      await weatherChat.getByRole('button', { name: 'Start' }).click();
      await weatherChat.getByRole('textbox', { name: 'Message' }).fill('rain tomorrow?');
      await weatherChat.getByRole('textbox', { name: 'Message' }).press('Enter');
      await expect
        .poll(() => polled(sandbox, weather.token), WAIT)
        .toEqual(['bot_started', 'message_created: rain tomorrow?']);
      await botSays(sandbox, weather.token, ann.user_id, 'Sunny, 24 °C');
      await weatherChat.getByText('Sunny, 24 °C').waitFor(WAIT);
      expect(await weatherChat.getByText('Lamps are on aisle 3').count()).toBe(0);
      expect(await polled(sandbox, sandbox.token)).toHaveLength(2);
      expect(await page.getByRole('combobox', { name: 'Bot to chat with' }).inputValue()).toBe(
        String(weather.id),
      );

      mkdirSync(RESULTS, { recursive: true });
      await shotOf(page.locator('body'), join(RESULTS, 'playground-bots.png'));
      if (process.env.BOTFLOW_UPDATE_SCREENSHOT)
        copyFileSync(join(RESULTS, 'playground-bots.png'), join(REPO, 'docs', 'playground-bots.png'));

      // Back to Shop: Ann's chat with Shop is as she left it.
      await page
        .getByRole('combobox', { name: 'Bot to chat with' })
        .selectOption(String(sandbox.bot.user_id));
      await page.waitForURL((url) => !url.search.includes('bot='));
      await page
        .getByRole('article', { name: 'Chat of Ann' })
        .getByText('Lamps are on aisle 3')
        .waitFor(WAIT);
      // An address naming a bot removed since: back to the default bot, which is alone now (no picker).
      sandbox.removeBot(weather.id);
      await page.goto(new URL(`/?bot=${weather.id}`, sandbox.baseUrl).href);
      await page.waitForURL((url) => !url.search.includes('bot='));
      await page.locator('#bot-name').getByText('@shop_bot').waitFor(WAIT);
      expect(await page.getByRole('combobox', { name: 'Bot to chat with' }).count()).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await sandbox.close();
    }
  });

  it('shows no picker with one bot', async () => {
    const sandbox = await startSandbox({ limits: false, plugins: [webChat] });
    try {
      const { page, errors } = await open(sandbox);
      await page.locator('#bot-name').getByText('Sandbox Bot').waitFor(WAIT);
      expect(await page.getByRole('combobox', { name: 'Bot to chat with' }).count()).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await sandbox.close();
    }
  });
});
