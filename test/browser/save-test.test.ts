/**
 * "Save as test" in the playground: a designer chats through the sign-up wizard as Ann (typing, pressing a
 * button, letting a reminder fire with the clock), clicks Save as test, and the transcript lands in the
 * flows folder's tests/; `botflow test` then runs it and it passes, and it fails once the flow's wording
 * changes. Real chromium, a real `botflow run`, the real CLI.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { playgroundDatabases, shotOf, usePlaygroundOn } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

function botflowTest(dir: string) {
  return spawnSync(process.execPath, [join(REPO, 'bin', 'botflow.js'), 'test', 'flows'], {
    cwd: dir,
    encoding: 'utf8',
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('BOTFLOW_'))),
  });
}

describe.each(await playgroundDatabases())('save as test on %s', (kind) => {
  const pg = usePlaygroundOn(kind, WAIT.timeout);

  it('writes the chat as a transcript that botflow test passes, and that catches a changed text', async () => {
    const { page, pageErrors, botflow } = pg;
    await page.getByLabel("New person's name").fill('Ann');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const chat = page.getByRole('article', { name: 'Chat of Ann' });
    const say = async (text: string, answer: string) => {
      await chat.getByRole('textbox', { name: 'Message' }).fill(text);
      await chat.getByRole('textbox', { name: 'Message' }).press('Enter');
      await chat.locator('.msg-bot', { hasText: answer }).waitFor(WAIT);
    };
    await chat.getByRole('button', { name: 'Start' }).click();
    await chat.locator('.msg-bot', { hasText: 'What is your' }).waitFor(WAIT);
    await say('Ann', 'How old are you?');
    await say('34', 'Your email address?');
    await say('ann@example.org', 'Please check');
    await chat.getByRole('button', { name: 'Edit age' }).click();
    await chat.locator('.msg-bot', { hasText: 'How old are you?' }).nth(1).waitFor(WAIT);
    await say('35', 'Age: 35');

    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    await panel.getByRole('button', { name: 'Save as test' }).click();
    const note = panel.getByRole('status');
    await expect.poll(() => note.textContent(), WAIT).toMatch(/^Saved as /);
    mkdirSync(RESULTS, { recursive: true });
    await shotOf(
      panel.locator('.panel-head'),
      join(RESULTS, `playground-save-test${kind === 'postgres' ? '-postgres' : ''}.png`),
    );
    await page.screenshot({
      path: join(RESULTS, `playground-save-test-page${kind === 'postgres' ? '-postgres' : ''}.png`),
    });
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT && kind === 'sqlite')
      copyFileSync(
        join(RESULTS, 'playground-save-test-page.png'),
        join(REPO, 'docs', 'playground-save-test.png'),
      );
    const file = join(botflow.dir, 'flows', 'tests', 'signup-ann.test.yaml');
    expect((await note.textContent())!).toContain('signup-ann.test.yaml');
    const saved = readFileSync(file, 'utf8');
    writeFileSync(join(RESULTS, 'signup-ann.test.yaml'), saved); // to look at
    expect(saved).toContain('flow: signup');
    expect(saved).toContain('press: Edit age');
    expect(saved).toContain('locale: en');

    const passing = botflowTest(botflow.dir);
    expect(passing.stdout + passing.stderr).toMatch(/1 passed/);
    expect(passing.status).toBe(0);

    // A changed wording fails it, naming the turn.
    const flowFile = join(botflow.dir, 'flows', 'signup.flow.yaml');
    writeFileSync(
      flowFile,
      readFileSync(flowFile, 'utf8').replace('Your email address?', 'Your e-mail, please?'),
    );
    const failing = botflowTest(botflow.dir);
    expect(failing.status).toBe(1);
    expect(failing.stdout + failing.stderr).toContain('Your e-mail, please?');
    expect(pageErrors).toEqual([]);
  });
});
