/**
 * The example flows driven end to end: the real engine (SQLite in a temp dir, signed buttons, outbox)
 * against the sandbox over real HTTP, with people acting through the sandbox's control API.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/api/client.ts';
import { createEngine, type Engine } from '../../src/engine/engine.ts';
import { loadFlows } from '../../src/flows/load.ts';
import { updateEntry } from '../../src/intake/update-entry.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.ts';
import { openDatabase } from '../../src/store/database.ts';
import { InboxStore } from '../../src/store/inbox.ts';

let sandbox: Sandbox;
let api: BotApi;
let db: Database.Database;
let engine: Engine;
let inbox: InboxStore;
let marker: number | undefined;
/** One virtual clock for the sandbox and the engine, so timers are exact. */
let clock = Date.now();

/** Moves every pending update from the sandbox into the inbox, then lets the engine finish its work. */
async function pump(rounds = 3) {
  for (let i = 0; i < rounds; i++) {
    const url = new URL(`${sandbox.baseUrl}/updates`);
    url.searchParams.set('timeout', '0');
    if (marker !== undefined) url.searchParams.set('marker', String(marker));
    const res = await fetch(url, { headers: { Authorization: sandbox.token } });
    const body = (await res.json()) as { updates: unknown[]; marker?: number };
    if (body.marker !== undefined) marker = body.marker;
    if (body.updates.length) inbox.append(body.updates.map((u) => updateEntry(JSON.stringify(u))));
    engine.processPending();
    await engine.drain();
    engine.processPending();
    await engine.drain();
    if (!body.updates.length && i > 0) return;
  }
}

async function person(name: string, locale?: string) {
  const user = await sandbox.control.createUser({ first_name: name, ...(locale ? { locale } : {}) });
  return user.user_id;
}

async function texts(userId: number) {
  const view = await sandbox.control.view(userId);
  return view.messages;
}

async function lastBot(userId: number) {
  const ms = (await texts(userId)).filter((m) => m.from === 'bot');
  return ms[ms.length - 1]!;
}

beforeAll(async () => {
  sandbox = await startSandbox({
    limits: false,
    now: () => clock,
    attachmentProcessingMs: { file: 0, image: 0 },
  });
  api = new BotApi({ token: sandbox.token, baseUrl: sandbox.baseUrl });
  db = openDatabase({ path: join(mkdtempSync(join(tmpdir(), 'botflow-e2e-')), 'bot.db') });
  inbox = new InboxStore(db);
  const loaded = await loadFlows('flows');
  expect(loaded.problems).toEqual([]);
  engine = createEngine({ db, api, flows: loaded.flows, now: () => clock, secret: 'e2e-secret-0123456789' });
  engine.start();
});

afterAll(async () => {
  await engine?.stop({ deadlineMs: Date.now() + 2000 });
  await api?.close();
  await sandbox?.close();
  db?.close();
});

describe('example flows through the engine against the sandbox', () => {
  it('signup: start, validation retries, edit a field, confirm; a reminder fires on idle', async () => {
    const ann = await person('Ann');
    await sandbox.control.startBot(ann, {});
    await pump();
    expect((await lastBot(ann)).text).toBe('Welcome! What is your <b>name</b>?');
    await sandbox.control.sendText(ann, 'dialog', 'Ann');
    await pump();
    expect((await lastBot(ann)).text).toBe('Nice to meet you, Ann. How old are you?');
    await sandbox.control.sendText(ann, 'dialog', 'old');
    await pump();
    expect((await lastBot(ann)).text).toBe('Please send your age as a number, like 27.');
    await sandbox.control.sendText(ann, 'dialog', '34');
    await pump();
    expect((await lastBot(ann)).text).toBe('Your email address?');

    clock += 61 * 60 * 1000; // an hour of silence: the ask_email step has no reminder, ask_age's was cancelled
    engine.tick(clock);
    await pump();
    expect((await lastBot(ann)).text).toBe('Your email address?');

    await sandbox.control.sendText(ann, 'dialog', 'ann@example.org');
    await pump();
    const summary = await lastBot(ann);
    expect(summary.text).toContain('Age: 34');
    await sandbox.control.pressButton(ann, summary.message_id, { text: 'Edit age' });
    await pump();
    expect((await lastBot(ann)).text).toBe('Nice to meet you, Ann. How old are you?');
    await sandbox.control.sendText(ann, 'dialog', '35');
    await pump();
    const again = await lastBot(ann);
    expect(again.text).toContain('Age: 35');

    clock += 2 * 60 * 60 * 1000 + 1000; // the confirm step reminds after 2 h
    engine.tick(clock);
    await pump();
    expect((await lastBot(ann)).text).toBe('One tap left: confirm your sign-up above.');

    // The first summary's keyboard is stale now: its press is answered with the flow's notice.
    await sandbox.control.pressButton(ann, summary.message_id, { text: '✅ Confirm' });
    await pump();
    const notes = await sandbox.control.notifications(ann);
    expect(notes.notifications.map((n) => n.text)).toContain('That button belongs to an older message.');

    await sandbox.control.pressButton(ann, again.message_id, { text: '✅ Confirm' });
    await pump();
    expect((await lastBot(ann)).text).toBe('Thanks, Ann! You are signed up.');
  });

  it('settings: the menu is edited in place, back works, and the language switches', async () => {
    const bob = await person('Bob', 'en-US');
    await sandbox.control.startBot(bob, {});
    await pump();
    await sandbox.control.sendText(bob, 'dialog', '/cancel');
    await pump();
    await sandbox.control.sendText(bob, 'dialog', '/settings');
    await pump();
    const menu = await lastBot(bob);
    expect(menu.text).toBe('Settings');
    const before = (await texts(bob)).length;
    await sandbox.control.pressButton(bob, menu.message_id, { text: 'Language' });
    await pump();
    const edited = (await texts(bob)).find((m) => m.message_id === menu.message_id)!;
    expect(edited.text).toBe('Choose your language');
    expect(edited.edited).toBe(true);
    expect((await texts(bob)).length).toBe(before);
    await sandbox.control.pressButton(bob, menu.message_id, { text: 'Русский' });
    await pump();
    const ru = (await texts(bob)).find((m) => m.message_id === menu.message_id)!;
    expect(ru.text).toBe('Настройки');
    await sandbox.control.pressButton(bob, menu.message_id, { text: 'Закрыть' });
    await pump();
    expect((await lastBot(bob)).text).toBe('Настройки сохранены.');
  });

  it('support: a file, a shared contact and a description, then the request is sent', async () => {
    const cy = await person('Cy');
    await sandbox.control.startBot(cy, {});
    await pump();
    await sandbox.control.sendText(cy, 'dialog', '/support');
    await pump();
    // /support is not an answer to "What is your name?": the sign-up says so; /cancel ends it.
    expect((await lastBot(cy)).text).toBe('Please send a text message.');
    await sandbox.control.sendText(cy, 'dialog', '/cancel');
    await pump();
    await sandbox.control.sendText(cy, 'dialog', '/support');
    await pump();
    expect((await lastBot(cy)).text).toBe('Send a screenshot or a file that shows the problem.');
    await sandbox.control.sendAttachment(cy, 'dialog', { type: 'file', filename: 'log.txt', text: 'boom' });
    await pump();
    const ask = await lastBot(cy);
    expect(ask.text).toBe('How can we reach you? Share your contact with the button.');
    await sandbox.control.sendContact(cy, 'dialog');
    await pump();
    expect((await lastBot(cy)).text).toBe('Describe the problem in a few sentences.');
    await sandbox.control.sendText(cy, 'dialog', 'The app crashes when I open settings.');
    await pump();
    const confirm = await lastBot(cy);
    await sandbox.control.pressButton(cy, confirm.message_id, { text: 'Send' });
    await pump();
    const all = (await texts(cy)).map((m) => m.text);
    expect(all).toContain('Thank you! Your request is on its way; we usually answer within a day.');
    expect(all).toContain('New support request: The app crashes when I open settings.');
  });
});
