/**
 * The playground's editor (issue 38): a designer opens the conversation's flow file beside the chat, types
 * a change, sees the checker's diagnostic for a broken goto, fixes it and saves; the file keeps its
 * comments byte for byte and the chat runs the new text. The graph's step form writes the same YAML. A save
 * over a file changed on disk meanwhile is refused, the typed text kept. Screenshots go to test-results/
 * (and to docs/ with BOTFLOW_UPDATE_SCREENSHOT=1).
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script of the repository (no types)
import { buildEditor } from '../../scripts/build-editor.mjs';
import { personChat, shotOf, usePlayground } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

// The bundle is generated (npm install builds it): make sure this checkout's is there before botflow starts.
await buildEditor();
const pg = usePlayground(WAIT.timeout);

/** A screenshot to test-results/, and to docs/ when `docs` and BOTFLOW_UPDATE_SCREENSHOT are set. */
async function shot(part: Locator, name: string, docs = false) {
  mkdirSync(RESULTS, { recursive: true });
  await shotOf(part, join(RESULTS, name));
  if (docs && process.env.BOTFLOW_UPDATE_SCREENSHOT)
    copyFileSync(join(RESULTS, name), join(REPO, 'docs', name));
}

/** A screenshot of the page's area around `parts` (the panel scrolls: an element shot would be clipped). */
async function shotAround(page: Page, parts: Locator[], name: string) {
  await parts[parts.length - 1]!.scrollIntoViewIfNeeded();
  const boxes = await Promise.all(parts.map(async (p) => (await p.boundingBox())!));
  const x = Math.min(...boxes.map((b) => b.x)) - 8;
  const y = Math.min(...boxes.map((b) => b.y)) - 8;
  const width = Math.max(...boxes.map((b) => b.x + b.width)) - x + 8;
  const height = Math.max(...boxes.map((b) => b.y + b.height)) - y + 8;
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, name), clip: { x, y, width, height } });
  if (process.env.BOTFLOW_UPDATE_SCREENSHOT) copyFileSync(join(RESULTS, name), join(REPO, 'docs', name));
}

/** Puts the cursor at the end of the editor's line that contains `text`. */
async function endOfLine(page: Page, editor: Locator, text: string) {
  await editor.locator('.cm-line', { hasText: text }).first().click();
  await page.keyboard.press('End');
}

/** The inspector's lines of a step, as the running flow has them (they change once the flow reloads). */
function runningStepText(page: Page, flow: string, step: string) {
  return page.evaluate(
    async ([flow, step]) => {
      const state = await (await fetch('/_inspector/state')).json();
      return state.flows.find((f: { id: string }) => f.id === flow)?.steps[step!]?.text as string;
    },
    [flow, step],
  );
}

describe("the playground's editor", () => {
  it('edits the flow file with diagnostics, saves it with its comments, and the chat runs the new text', async () => {
    const { page, pageErrors, botflow } = pg;
    const file = join(botflow.dir, 'flows', 'signup.flow.yaml');
    const original = readFileSync(file, 'utf8');
    await personChat(page, 'Ann', WAIT.timeout);
    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    await panel.getByRole('button', { name: 'edit file' }).click();
    const editor = page.getByRole('region', { name: 'Flow editor' });
    await editor.getByText('signup.flow.yaml').waitFor();
    await editor.locator('.cm-line', { hasText: 'Welcome! What is your' }).waitFor();

    // A change to the question's text, then a goto to no step: the checker's error shows on its line.
    await endOfLine(page, editor, 'Welcome! What is your');
    await page.keyboard.press('ArrowLeft'); // inside the closing quote
    await page.keyboard.type(' Your first name is enough.');
    await endOfLine(page, editor, 'next: ask_age');
    await page.keyboard.type('x');
    await editor.locator('.cm-lintRange-error').first().waitFor();
    await expect
      .poll(() => editor.getByRole('status', { name: 'Editor state' }).textContent(), WAIT)
      .toContain('1 error');
    await editor.locator('.cm-lintRange-error').first().hover();
    await page
      .locator('.cm-tooltip-lint')
      .getByText(/ask_agex/)
      .first()
      .waitFor();
    await shot(editor, 'editor-diagnostic.png');
    await shot(page.locator('main.layout'), 'editor-playground.png', true);

    // Fixed: the error goes; saved: the file is the original with the one change, comments and all.
    await page.keyboard.press('Backspace');
    await expect.poll(() => editor.locator('.cm-lintRange-error').count(), WAIT).toBe(0);

    // Completion from the language service: after `next: ask_`, the flow's steps that start so, with kinds.
    for (let i = 0; i < 3; i++) await page.keyboard.press('Backspace');
    await page.keyboard.press('Control+Space');
    const offered = page.locator('.cm-tooltip-autocomplete li');
    await expect.poll(async () => (await offered.allTextContents()).join(' | '), WAIT).toContain('ask_email');
    expect((await offered.allTextContents()).join(' | ')).toContain('ask_age');
    await shot(editor, 'editor-completion.png');
    await page.keyboard.press('Escape');
    await page.keyboard.type('age');
    await expect.poll(() => editor.locator('.cm-lintRange-error').count(), WAIT).toBe(0);
    await page.keyboard.press('Control+s');
    await editor.getByText(/^Saved/).waitFor();
    const expected = original.replace(
      '"Welcome! What is your <b>name</b>?"',
      '"Welcome! What is your <b>name</b>? Your first name is enough."',
    );
    expect(expected).not.toBe(original);
    expect(readFileSync(file, 'utf8')).toBe(expected);
    expect(expected.startsWith('# yaml-language-server: $schema=./flow.schema.json\n# Sign-up wizard')).toBe(
      true,
    );

    // The chat reloads the flow as for any save: a new conversation hears the new text.
    await expect
      .poll(() => runningStepText(page, 'signup', 'ask_name'), WAIT)
      .toContain('first name is enough');
    const { chat } = await personChat(page, 'Bea', WAIT.timeout);
    await chat.locator('.msg-bot', { hasText: 'Your first name is enough.' }).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it("edits a step's text and buttons in the graph's form, keeping the file's comments", async () => {
    const { page, pageErrors, botflow } = pg;
    const file = join(botflow.dir, 'flows', 'signup.flow.yaml');
    const before = readFileSync(file, 'utf8');
    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    await panel.locator('.graph g.node[data-step="confirm"]').click();
    const form = panel.getByRole('form', { name: 'Edit step confirm' });
    await form.getByLabel('Button Edit age: label').fill('Change age');
    await form
      .getByLabel('Says')
      .fill('Please check your answers:\nName: {{name}}\nAge: {{age}}\nEmail: {{email}}');
    await shotAround(
      page,
      [panel.getByRole('figure', { name: 'Lines of step confirm' }), form],
      'editor-step-form.png',
    );
    await form.getByRole('button', { name: 'Save step' }).click();
    await form.getByText('Saved to the file.').waitFor();
    expect(readFileSync(file, 'utf8')).toBe(
      before
        .replace('"Please check:\\nName:', '"Please check your answers:\\nName:')
        .replace('text: "Edit age"', 'text: "Change age"'),
    );
    await expect.poll(() => runningStepText(page, 'signup', 'confirm'), WAIT).toContain('Change age');
    // The open editor shows what the form wrote.
    const editor = page.getByRole('region', { name: 'Flow editor' });
    await editor.locator('.cm-line', { hasText: 'Change age' }).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('refuses to save over a file changed on disk since it was opened, and keeps the typed text', async () => {
    const { page, botflow } = pg;
    const file = join(botflow.dir, 'flows', 'signup.flow.yaml');
    const editor = page.getByRole('region', { name: 'Flow editor' });
    await endOfLine(page, editor, 'Your email address?');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type(' (work or home)');
    const elsewhere = `${readFileSync(file, 'utf8')}# a line another editor saved\n`;
    writeFileSync(file, elsewhere);
    await editor.getByRole('button', { name: 'Save' }).click();
    await editor
      .getByRole('alert')
      .getByText(/changed on disk since you opened it/)
      .waitFor();
    expect(readFileSync(file, 'utf8')).toBe(elsewhere);
    await editor.locator('.cm-line', { hasText: 'Your email address? (work or home)' }).waitFor();
    expect(await editor.getByRole('status', { name: 'Editor state' }).textContent()).toContain(
      'unsaved changes',
    );
  });
});
