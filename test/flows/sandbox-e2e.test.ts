/**
 * The example flows driven end to end: the real engine (SQLite in a temp dir, signed buttons, outbox)
 * against the sandbox over real HTTP, with people acting through the sandbox's control API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFlows } from '../../src/flows/load.ts';
import { Harness } from '../../src/testing/harness.ts';
import { lastBot as lastBotOf, messagesOf, personId } from '../support/people.ts';

let bot: Harness;
const pump = () => bot.settle();
const lastBot = (user: number) => lastBotOf(bot, user);
const texts = (user: number) => messagesOf(bot, user);
const person = (name: string, locale?: string) => personId(bot, name, locale);

beforeAll(async () => {
  const loaded = await loadFlows('flows');
  expect(loaded.problems).toEqual([]);
  bot = await Harness.start({ flows: loaded.flows });
});

afterAll(async () => {
  await bot?.close();
});

describe('example flows through the engine against the sandbox', () => {
  it('signup: start, validation retries, edit a field, confirm; a reminder fires on idle', async () => {
    const ann = await person('Ann');
    await bot.sandbox.control.startBot(ann, {});
    await pump();
    expect(await lastBot(ann)).toMatchObject({
      text: 'Welcome! What is your name?',
      markup: [{ type: 'strong', from: 22, length: 4 }],
    });
    await bot.sandbox.control.sendText(ann, 'dialog', 'Ann');
    await pump();
    expect((await lastBot(ann)).text).toBe('Nice to meet you, Ann. How old are you?');
    await bot.sandbox.control.sendText(ann, 'dialog', 'old');
    await pump();
    expect((await lastBot(ann)).text).toBe('Please send your age as a number, like 27.');
    await bot.sandbox.control.sendText(ann, 'dialog', '34');
    await pump();
    expect((await lastBot(ann)).text).toBe('Your email address?');

    await bot.advance(61 * 60 * 1000); // an hour of silence: ask_email has no reminder, ask_age's was cancelled
    expect((await lastBot(ann)).text).toBe('Your email address?');

    await bot.sandbox.control.sendText(ann, 'dialog', 'ann@example.org');
    await pump();
    const summary = await lastBot(ann);
    expect(summary.text).toContain('Age: 34');
    await bot.sandbox.control.pressButton(ann, summary.message_id, { text: 'Edit age' });
    await pump();
    expect((await lastBot(ann)).text).toBe('Nice to meet you, Ann. How old are you?');
    await bot.sandbox.control.sendText(ann, 'dialog', '35');
    await pump();
    const again = await lastBot(ann);
    expect(again.text).toContain('Age: 35');

    await bot.advance(2 * 60 * 60 * 1000 + 1000); // the confirm step reminds after 2 h
    expect((await lastBot(ann)).text).toBe('One tap left: confirm your sign-up above.');

    // The first summary's keyboard is stale now: its press is answered with the flow's notice.
    await bot.sandbox.control.pressButton(ann, summary.message_id, { text: '✅ Confirm' });
    await pump();
    const notes = await bot.sandbox.control.notifications(ann);
    expect(notes.notifications.map((n) => n.text)).toContain('That button belongs to an older message.');

    await bot.sandbox.control.pressButton(ann, again.message_id, { text: '✅ Confirm' });
    await pump();
    expect((await lastBot(ann)).text).toBe('Thanks, Ann! You are signed up.');
  });

  it('settings: the menu is edited in place, back works, and the language switches', async () => {
    const bob = await person('Bob', 'en-US');
    await bot.sandbox.control.startBot(bob, {});
    await pump();
    await bot.sandbox.control.sendText(bob, 'dialog', '/cancel');
    await pump();
    await bot.sandbox.control.sendText(bob, 'dialog', '/settings');
    await pump();
    const menu = await lastBot(bob);
    expect(menu.text).toBe('Settings');
    const before = (await texts(bob)).length;
    await bot.sandbox.control.pressButton(bob, menu.message_id, { text: 'Language' });
    await pump();
    const edited = (await texts(bob)).find((m) => m.message_id === menu.message_id)!;
    expect(edited.text).toBe('Choose your language');
    expect(edited.edited).toBe(true);
    expect((await texts(bob)).length).toBe(before);
    await bot.sandbox.control.pressButton(bob, menu.message_id, { text: 'Русский' });
    await pump();
    const ru = (await texts(bob)).find((m) => m.message_id === menu.message_id)!;
    expect(ru.text).toBe('Настройки');
    await bot.sandbox.control.pressButton(bob, menu.message_id, { text: 'Закрыть' });
    await pump();
    expect((await lastBot(bob)).text).toBe('Настройки сохранены.');
  });

  it('support: a file, a shared contact and a description, then the request is sent', async () => {
    const cy = await person('Cy');
    await bot.sandbox.control.startBot(cy, {});
    await pump();
    await bot.sandbox.control.sendText(cy, 'dialog', '/support');
    await pump();
    // /support is not an answer to "What is your name?": the sign-up says so; /cancel ends it.
    expect((await lastBot(cy)).text).toBe(
      'You are in the middle of “Sign-up wizard”. Answer the question above, or send /cancel to leave it.',
    );
    await bot.sandbox.control.sendText(cy, 'dialog', '/cancel');
    await pump();
    await bot.sandbox.control.sendText(cy, 'dialog', '/support');
    await pump();
    expect((await lastBot(cy)).text).toBe('Send a screenshot or a file that shows the problem.');
    await bot.sandbox.control.sendAttachment(cy, 'dialog', {
      type: 'file',
      filename: 'log.txt',
      text: 'boom',
    });
    await pump();
    const ask = await lastBot(cy);
    expect(ask.text).toBe('How can we reach you? Share your contact with the button.');
    await bot.sandbox.control.sendContact(cy, 'dialog');
    await pump();
    expect((await lastBot(cy)).text).toBe('Describe the problem in a few sentences.');
    await bot.sandbox.control.sendText(cy, 'dialog', 'The app crashes when I open settings.');
    await pump();
    const confirm = await lastBot(cy);
    await bot.sandbox.control.pressButton(cy, confirm.message_id, { text: 'Send' });
    await pump();
    const all = (await texts(cy)).map((m) => m.text);
    expect(all).toContain('Thank you! Your request is on its way; we usually answer within a day.');
    expect(all).toContain('New support request: The app crashes when I open settings.');
  });
});
