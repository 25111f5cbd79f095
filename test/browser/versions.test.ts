/**
 * `botflow flows plan` in the page: two people are in the sign-up when the designer saves a change to it;
 * the panel's "versions" page says both stay on the version they started (rebuilt from the stored source),
 * and after a `migrate:` block is added, that they move to its step at their next event. A screenshot goes
 * to test-results/ (docs/ with BOTFLOW_UPDATE_SCREENSHOT).
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { personChat, playgroundDatabases, usePlaygroundOn } from './botflow-process.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(REPO, 'test-results');
const WAIT = { timeout: 30_000 };

describe.each(await playgroundDatabases())('running conversations by flow version on %s', (kind) => {
  const pg = usePlaygroundOn(kind, WAIT.timeout);

  it('tells which conversations stay on an older version and which a migrate: block moves', async () => {
    const { page, pageErrors, botflow } = pg;
    const ann = await personChat(page, 'Ann', WAIT.timeout);
    await ann.say('Ann');
    await ann.chat.locator('.msg-bot', { hasText: 'How old are you?' }).waitFor(WAIT);
    await personChat(page, 'Bo', WAIT.timeout);

    const signup = join(botflow.dir, 'flows', 'signup.flow.yaml');
    const original = readFileSync(signup, 'utf8');
    const versionOf = async () =>
      page.evaluate(async () => {
        const state = await (await fetch('/_inspector/state')).json();
        return state.flows.find((f: { id: string }) => f.id === 'signup').version as string;
      });
    const v1 = await versionOf();
    writeFileSync(signup, original.replace('How old are you?', 'And how old are you?'));
    await expect.poll(versionOf, WAIT).not.toBe(v1);

    const panel = page.getByRole('complementary', { name: 'Conversation inspector' });
    const [board] = await Promise.all([
      page.context().waitForEvent('page'),
      panel.getByRole('link', { name: 'versions' }).click(),
    ]);
    await board.waitForLoadState();
    expect(await board.locator('.summary').textContent()).toBe(
      '2 conversations run on an older version of a flow; none is stranded.',
    );
    const row = board.locator(`tr[data-flow="signup"][data-version="${v1}"]`);
    expect(await row.locator('td.num').textContent()).toBe('2');
    expect(await row.locator('.tag').textContent()).toBe('stay on their version');

    // A migrate: block for version 1 moves them at their next event: Ann to the renamed step.
    writeFileSync(
      signup,
      original
        .replace('version: 1', 'version: 2')
        .replaceAll('ask_age', 'ask_years')
        .replace('\nsteps:\n', '\nmigrate:\n  - { from: [1], steps: { ask_age: ask_years } }\n\nsteps:\n'),
    );
    await expect.poll(versionOf, WAIT).toMatch(/^2-/);
    await board.reload();
    await expect.poll(() => row.locator('.tag').textContent(), WAIT).toBe('move at their next event');
    expect(await row.locator('td').last().textContent()).toBe('migrate: moves 1 to ask_years, 1 to ask_name');
    mkdirSync(RESULTS, { recursive: true });
    await board.setViewportSize({ width: 1100, height: 420 });
    await board.screenshot({
      path: join(RESULTS, `playground-versions${kind === 'postgres' ? '-postgres' : ''}.png`),
    });
    if (process.env.BOTFLOW_UPDATE_SCREENSHOT && kind === 'sqlite')
      copyFileSync(join(RESULTS, 'playground-versions.png'), join(REPO, 'docs', 'playground-versions.png'));
    await board.close();
    expect(pageErrors).toEqual([]);
  });
});
