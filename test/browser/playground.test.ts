/**
 * The web chat playground end to end, as a person uses it: `botflow run` with the embedded default (a
 * child process in a temporary folder), Debian's chromium driven by playwright-core, the example flows.
 * Saves test-results/playground.png; `BOTFLOW_UPDATE_SCREENSHOT=1` also copies it to docs/playground.png.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BotflowProcess, openPlayground, startBotflow } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
/** Generous: the machine may be a loaded 2-core CI box. */
const WAIT = { timeout: 30_000 };

// A 2×2 PNG (red, green, blue, white): small, but a real image the browser decodes.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

let botflow: BotflowProcess;
let browser: Browser;
let page: Page;
/** Uncaught errors of the page's scripts: there must be none. */
let pageErrors: string[];

beforeAll(async () => {
  botflow = await startBotflow();
  ({ browser, page, pageErrors } = await openPlayground(botflow, WAIT.timeout));
});

afterAll(async () => {
  await browser?.close();
  await botflow?.stop();
});

async function addPerson(name: string): Promise<Locator> {
  await page.getByLabel("New person's name").fill(name);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  const chat = page.getByRole('article', { name: `Chat of ${name}` });
  await chat.waitFor();
  return chat;
}

async function say(chat: Locator, text: string): Promise<void> {
  const box = chat.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

/** The bot's messages containing `text`, in one chat. */
const botMessage = (chat: Locator, text: string | RegExp) => chat.locator('.msg-bot', { hasText: text });
const currentStep = () => page.getByLabel('Current step', { exact: true });
const panel = () => page.getByRole('complementary', { name: 'Conversation inspector' });

describe('the web chat playground', () => {
  it('signs up through the wizard by typing and pressing buttons; the side panel follows each step', async () => {
    const alice = await addPerson('Alice');
    await alice.getByLabel('Start payload').fill('from-readme');
    await alice.getByRole('button', { name: 'Start' }).click();
    await botMessage(alice, 'What is your name?').waitFor();
    await expect.poll(() => currentStep().textContent(), WAIT).toBe('ask_name');

    await say(alice, 'Alice');
    await botMessage(alice, 'Nice to meet you, Alice. How old are you?').waitFor();
    await expect.poll(() => currentStep().textContent(), WAIT).toBe('ask_age');

    await say(alice, 'twenty');
    await botMessage(alice, 'Please send your age as a number').waitFor();
    await say(alice, '27');
    await say(alice, 'alice@example.com');
    const firstSummary = botMessage(alice, 'Age: 27');
    await firstSummary.getByRole('button', { name: 'Edit age' }).click();
    await expect.poll(() => botMessage(alice, 'How old are you?').count(), WAIT).toBe(2);
    await say(alice, '30');
    await botMessage(alice, 'Age: 30').waitFor();

    // The first summary's keyboard belongs to a step the conversation has left: the bot says so, in a
    // message (a notification-only callback answer is not shown to people on the platform).
    await firstSummary.getByRole('button', { name: 'Confirm' }).click();
    await botMessage(alice, 'That button belongs to an older message.').waitFor();

    await expect.poll(() => currentStep().textContent(), WAIT).toBe('confirm');
    expect(await panel().locator('.graph .node.current').getAttribute('data-step')).toBe('confirm');
    const context = panel().getByRole('region', { name: 'Context' });
    await expect.poll(() => context.locator('tr', { hasText: 'age' }).textContent(), WAIT).toContain('30');
    expect(await context.locator('tr', { hasText: 'email' }).textContent()).toContain('alice@example.com');
    const history = panel().locator('.history li');
    await expect
      .poll(() => history.allTextContents(), WAIT)
      .toEqual(
        expect.arrayContaining([
          expect.stringContaining('bot started (payload from-readme)'),
          expect.stringContaining('message "Alice"'),
          expect.stringContaining('button edit_age'),
        ]),
      );
    expect(await panel().getByRole('region', { name: 'Timers' }).textContent()).toContain('confirm');
  });

  it('shows a second person side by side, whose menu is edited in place', async () => {
    const bob = await addPerson('Bob');
    await bob.getByRole('button', { name: 'Start' }).click();
    await botMessage(bob, 'What is your name?').waitFor();
    await say(bob, '/cancel');
    await botMessage(bob, 'Sign-up cancelled.').waitFor();
    await say(bob, '/settings');
    const menu = botMessage(bob, 'Settings');
    await menu.getByRole('button', { name: 'Notifications' }).waitFor();
    const menuId = await menu.getAttribute('data-message-id');
    const botMessages = await bob.locator('.msg-bot').count();

    await menu.getByRole('button', { name: 'Notifications' }).click();
    const edited = bob.locator(`.msg[data-message-id="${menuId}"]`);
    await edited.getByRole('button', { name: 'Turn off' }).waitFor();
    expect(await edited.locator('.msg-text').textContent()).toMatch(/^Notifications are on\.$/);
    expect(await edited.locator('.edited').textContent()).toBe('edited');
    expect(await bob.locator('.msg-bot').count()).toBe(botMessages);
    await expect.poll(() => currentStep().textContent(), WAIT).toBe('notifications');

    // Both chats stay open; the panel follows the chat picked.
    const alice = page.getByRole('article', { name: 'Chat of Alice' });
    await alice.locator('.chat-title').click();
    await expect.poll(() => currentStep().textContent(), WAIT).toBe('confirm');
    await alice.getByRole('log').evaluate((log) => log.scrollTo(0, log.scrollHeight));
    mkdirSync(RESULTS, { recursive: true });
    const screenshot = join(RESULTS, 'playground.png');
    await page.screenshot({ path: screenshot });
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT === '1')
      copyFileSync(screenshot, join(REPO, 'docs', 'playground.png'));
  });

  it('uploads a photo from the browser and shares a contact with a keyboard button', async () => {
    const alice = page.getByRole('article', { name: 'Chat of Alice' });
    await botMessage(alice, 'Age: 30').getByRole('button', { name: 'Confirm' }).click();
    await botMessage(alice, 'Thanks, Alice! You are signed up.').waitFor();
    // The example's record_signup effect is a typing action: the chat shows it for a few seconds.
    await alice.getByText('bot is typing…').waitFor();
    await expect.poll(() => panel().locator('.flow-title .pill').textContent(), WAIT).toBe('done');

    await say(alice, '/support');
    await botMessage(alice, 'Send a screenshot or a file').waitFor();
    await expect.poll(() => currentStep().textContent(), WAIT).toBe('ask_attachment');
    await alice
      .locator('input[type=file]')
      .setInputFiles({ name: 'screenshot.png', mimeType: 'image/png', buffer: PNG });
    const photo = alice.locator('.msg-me img');
    await photo.waitFor();
    await expect.poll(() => photo.evaluate((img: HTMLImageElement) => img.naturalWidth), WAIT).toBe(2);
    // By path, not by the sandbox's host and port: it still shows after a restart on another port.
    expect(await photo.getAttribute('src')).toMatch(/^\/_files\//);
    await botMessage(alice, 'How can we reach you?').waitFor();
    await expect.poll(() => currentStep().textContent(), WAIT).toBe('ask_contact');
    const saved = panel().getByRole('region', { name: 'Context' }).locator('tr', { hasText: 'attachment' });
    await expect.poll(() => saved.textContent(), WAIT).toContain('"kind":"photo"');

    await botMessage(alice, 'How can we reach you?')
      .getByRole('button', { name: 'Share my contact' })
      .click();
    await alice.locator('.msg-me .att-contact', { hasText: 'Alice' }).waitFor();
    await botMessage(alice, 'Describe the problem').waitFor();
    await expect.poll(() => currentStep().textContent(), WAIT).toBe('ask_description');
  });

  it('shows the check errors of a flow file saved with a mistake, and clears them once fixed', async () => {
    const file = join(botflow.dir, 'flows', 'help.flow.yaml');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, good.replace('next: bye', 'next: goodbye'));
    const problems = page.getByRole('alert').filter({ hasText: 'problem' });
    await problems.waitFor();
    expect(await problems.textContent()).toMatch(/help\.flow\.yaml:\d+:\d+: .*goodbye/);
    // The bot keeps running the last good version meanwhile.
    const bob = page.getByRole('article', { name: 'Chat of Bob' });
    await bob.getByRole('button', { name: '« Back' }).click();
    await botMessage(bob, 'Settings').getByRole('button', { name: 'Language' }).waitFor();

    writeFileSync(file, good);
    await problems.waitFor({ state: 'hidden' });
  });

  it('stops the bot: the chat shows it stopped and refuses messages until started again', async () => {
    const bob = page.getByRole('article', { name: 'Chat of Bob' });
    await bob.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => bob.locator('.chat-head .pill').textContent(), WAIT).toBe('stopped');
    await say(bob, 'hello?');
    await bob.getByRole('alert').filter({ hasText: 'start the bot again' }).waitFor();
    await bob.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => bob.locator('.chat-head .pill').textContent(), WAIT).toBe('active');
    expect(pageErrors).toEqual([]);
  });
});
