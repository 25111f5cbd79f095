import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { decodeUpdate, membershipChange } from '../../src/client/schemas/index.ts';
import {
  type FeedEvent,
  SandboxControl,
  SandboxControlError,
  startSandbox,
} from '../../src/sandbox/index.ts';
import { eventually } from '../support/eventually.ts';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog } from './helpers.ts';

/** The sandbox numbers its updates from 1: marker 1 reads every update kept (a test's view of the queue). */
const FIRST_MARKER = 1;

let h: SandboxClient | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const menu = {
  type: 'inline_keyboard' as const,
  payload: {
    buttons: [
      [
        { type: 'callback' as const, text: 'Yes', payload: 'yes' },
        { type: 'message' as const, text: 'Say hi' },
      ],
      [
        { type: 'request_contact' as const, text: 'Share phone' },
        { type: 'request_geo_location' as const, text: 'Where am I' },
        { type: 'link' as const, text: 'Site', url: 'https://example.com' },
      ],
    ],
  },
};

describe('people and callback answers', () => {
  it('a press produces message_callback; the answer edits the message and notifies the presser once', async () => {
    h = await sandboxClient();
    const { user, chatId } = await personInDialog(h.sandbox);
    const sent = await h.api.sendMessage({ user_id: user.user_id, text: 'Ready?', attachments: [menu] });
    const press = await h.sandbox.control.pressButton(user.user_id, sent.message.body.mid, { text: 'Yes' });
    expect(press.kind).toBe('callback');
    const polled = await h.api.getUpdates({ timeout: 0, marker: FIRST_MARKER, limit: 1000 });
    const cb = polled.updates.find((u) => u.update_type === 'message_callback');
    expect(cb).toMatchObject({
      callback: { callback_id: press.callback_id, payload: 'yes', user: { user_id: user.user_id } },
      message: { body: { mid: sent.message.body.mid } },
    });
    expect(press.callback_id!.length).toBeGreaterThanOrEqual(100);

    const notifyOnly = await h.api.answerCallback({ callback_id: press.callback_id!, notification: 'Saved' });
    expect(notifyOnly).toEqual({ success: true });
    const used = await h.api.answerCallback({ callback_id: press.callback_id!, notification: 'again' });
    expect(used).toMatchObject({ success: false, message: expect.stringContaining('already') });
    const wrong = await h.api.answerCallback({ callback_id: 'no-such-id', notification: 'x' });
    expect(wrong).toMatchObject({ success: false, message: expect.any(String) });

    const second = await h.sandbox.control.pressButton(user.user_id, sent.message.body.mid, 'yes');
    await h.api.answerCallbackResult({
      callback_id: second.callback_id!,
      message: { text: 'Done' },
      notification: 'Thanks',
    });
    const view = await h.sandbox.control.view(user.user_id);
    expect(view.messages).toHaveLength(1);
    expect(view.messages[0]).toMatchObject({ text: 'Done', edited: true });
    expect(view.messages[0]!.keyboard).toBeDefined(); // attachments omitted: kept
    // The notification-only answer was accepted but, as on the platform, nobody saw it.
    expect(view.notifications.map((n) => n.text)).toEqual(['Thanks']);
    expect((await h.sandbox.control.notifications(user.user_id)).notifications).toMatchObject([
      { chat_id: chatId, text: 'Saved', shown: false },
      { chat_id: chatId, text: 'Thanks', shown: true },
    ]);
  });

  it('other buttons act as the person: message, contact, location; links only answer their URL', async () => {
    h = await sandboxClient();
    const { user } = await personInDialog(h.sandbox);
    const sent = await h.api.sendMessage({ user_id: user.user_id, text: 'Pick', attachments: [menu] });
    const mid = sent.message.body.mid;
    const c = h.sandbox.control;
    expect((await c.pressButton(user.user_id, mid, { text: 'Say hi' })).kind).toBe('message');
    expect((await c.pressButton(user.user_id, mid, { text: 'Share phone' })).kind).toBe('contact');
    expect(
      (await c.pressButton(user.user_id, mid, { text: 'Where am I' }, { latitude: 1, longitude: 2 })).kind,
    ).toBe('location');
    expect(await c.pressButton(user.user_id, mid, { text: 'Site' })).toEqual({
      kind: 'link',
      url: 'https://example.com',
    });
    const created = (
      await h.api.getUpdates({ timeout: 0, marker: FIRST_MARKER, limit: 1000 })
    ).updates.filter((u) => u.update_type === 'message_created');
    const bodies = created.map((u) => (u.update_type === 'message_created' ? u.message.body : undefined));
    expect(bodies[0]?.text).toBe('Say hi');
    expect(bodies[1]?.attachments?.[0]).toMatchObject({
      type: 'contact',
      payload: { max_info: { user_id: user.user_id } },
    });
    expect(bodies[2]?.attachments?.[0]).toEqual({ type: 'location', latitude: 1, longitude: 2 });
    await expect(c.pressButton(user.user_id, mid, 'Nope')).rejects.toMatchObject({ status: 404 });
  });

  it('people send files, contacts and locations; the bot sees attachments with working URLs', async () => {
    h = await sandboxClient();
    const { user } = await personInDialog(h.sandbox);
    const c = h.sandbox.control;
    await c.sendAttachment(
      user.user_id,
      'dialog',
      { type: 'file', filename: 'cv.txt', text: 'my cv' },
      'here',
    );
    await c.sendContact(user.user_id, 'dialog', { name: 'Ann', phone: '+7900' });
    await c.sendLocation(user.user_id, 'dialog', { latitude: 59.9, longitude: 30.3 });
    const updates = (
      await h.api.getUpdates({ timeout: 0, marker: FIRST_MARKER, limit: 1000 })
    ).updates.filter((u) => u.update_type === 'message_created');
    expect(updates).toHaveLength(3);
    const file =
      updates[0]!.update_type === 'message_created' ? updates[0]!.message.body.attachments?.[0] : undefined;
    expect(file).toMatchObject({ type: 'file', filename: 'cv.txt' });
    const url = (file as unknown as { payload: { url: string } }).payload.url;
    expect(await (await fetch(url)).text()).toBe('my cv');
  });

  it('lists people, shows a chat with its members, and reports the bot and the clock', async () => {
    h = await sandboxClient({ now: () => 1_775_000_000_000 });
    const c = h.sandbox.control;
    const ann = await c.createUser({ first_name: 'Ann', locale: 'ru' });
    const bob = await c.createUser({ first_name: 'Bob' });
    expect(ann.locale).toBe('ru');
    expect((await c.users()).users.map((u) => u.first_name)).toEqual(['Ann', 'Bob']);
    const chat = await c.createChat({
      owner_id: ann.user_id,
      title: 'Pair',
      member_ids: [bob.user_id],
      with_bot: true,
      bot_permissions: ['write'],
    });
    const seen = await c.chat(chat.chat_id);
    expect(seen.chat).toMatchObject({ title: 'Pair', participants_count: 3 });
    expect(seen.members.map((m) => m.user_id)).toEqual([ann.user_id, bob.user_id, h.sandbox.bot.user_id]);
    expect(await c.info()).toMatchObject({
      bot: { user_id: h.sandbox.bot.user_id },
      origin: h.sandbox.baseUrl,
      time: 1_775_000_000_000,
    });
  });

  it('control errors are clear: unknown users, chats the person is not in, stopped bots', async () => {
    h = await sandboxClient();
    const c = h.sandbox.control;
    await expect(c.sendText(424242, 'dialog', 'x')).rejects.toMatchObject({ status: 404 });
    const ann = await c.createUser({ first_name: 'Ann' });
    const err = await c.sendText(ann.user_id, 'dialog', 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxControlError);
    expect((err as Error).message).toMatch(/start the bot first/);
    await expect(c.createChat({ owner_id: ann.user_id, title: '' })).rejects.toMatchObject({ status: 400 });
  });

  it('streams what people see at /_sandbox/events', async () => {
    h = await sandboxClient();
    const { user, chatId } = await personInDialog(h.sandbox);
    const other = await personInDialog(h.sandbox, 'Bob');
    const events: FeedEvent[] = [];
    const stream = await h.sandbox.control.events((e) => events.push(e), { user_id: user.user_id });
    try {
      const sent = await h.api.sendMessage({ user_id: user.user_id, text: 'one', attachments: [menu] });
      await h.api.sendMessage({ user_id: other.user.user_id, text: 'not for Ann' });
      await h.api.editMessage({ message_id: sent.message.body.mid, text: 'two' });
      const press = await h.sandbox.control.pressButton(user.user_id, sent.message.body.mid, 'yes');
      await h.api.answerCallbackResult({
        callback_id: press.callback_id!,
        notification: 'hey',
        message: { text: 'three' },
      });
      await h.api.deleteMessage({ message_id: sent.message.body.mid });
      await h.api.sendAction({ chat_id: chatId, action: 'typing_on' });
      await eventually(
        'condition',
        () => (events.some((e) => e.type === 'chat.action') ? true : undefined),
        10_000,
      );
      expect(events.map((e) => e.type)).toEqual([
        'message.created',
        'message.edited',
        'message.edited',
        'notification',
        'message.removed',
        'chat.action',
      ]);
      expect(events.every((e) => e.chat_id === chatId)).toBe(true);
      expect(events[3]).toMatchObject({ type: 'notification', user_id: user.user_id, text: 'hey' });
    } finally {
      stream.close();
    }
  });
});

describe('running it', () => {
  it('keeps its state in a SQLite file across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
    try {
      const dbPath = join(dir, 'sandbox.db');
      const first = await startSandbox({ dbPath, token: 'persist-token', limits: false });
      const { user } = await personInDialog(first);
      let api = new BotApi({ token: first.token, baseUrl: first.baseUrl });
      const sent = await api.sendMessage({ user_id: user.user_id, text: 'remember me' });
      await api.close();
      await first.close();

      const second = await startSandbox({ dbPath, token: 'persist-token', limits: false });
      api = new BotApi({ token: second.token, baseUrl: second.baseUrl });
      try {
        expect((await api.getMessage({ message_id: sent.message.body.mid })).body.text).toBe('remember me');
        const pending = await api.getUpdates({ timeout: 0 });
        expect(pending.updates.map((u) => u.update_type)).toEqual(['bot_started']);
        const again = await second.control.createUser({ first_name: 'Next' });
        expect(again.user_id).not.toBe(user.user_id);
      } finally {
        await api.close();
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('`botflow sandbox` prints one JSON line with baseUrl and token, then serves', async () => {
    const child = spawn(
      process.execPath,
      ['bin/botflow.js', 'sandbox', '--token', 'cli-token', '--no-limits'],
      {
        cwd: join(import.meta.dirname, '../..'),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
      });
      const { baseUrl, token } = JSON.parse(line) as { baseUrl: string; token: string };
      expect(token).toBe('cli-token');
      const api = new BotApi({ token, baseUrl });
      expect((await api.getMyInfo()).is_bot).toBe(true);
      await api.close();
      const control = new SandboxControl(baseUrl);
      expect((await control.createUser()).user_id).toBeGreaterThan(0);
      await control.close();
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);

  it('never shows the token in JSON output of the sandbox handle', async () => {
    h = await sandboxClient({ token: 'very-secret-token' });
    expect(Object.keys(h.sandbox)).not.toContain('token');
    expect(h.sandbox.token).toBe('very-secret-token');
    const update = await personInDialog(h.sandbox);
    expect(decodeUpdate((await h.api.getUpdates({ timeout: 0 })).updates[0]).update_type).toBe('bot_started');
    expect(update.chatId).toBeGreaterThan(0);
  });
});

describe('people joining and leaving a group', () => {
  it('sends user_added and user_removed as recorded: user is who acted, user_id the member', async () => {
    h = await sandboxClient();
    const owner = await h.sandbox.control.createUser({ first_name: 'Olga' });
    const guest = await h.sandbox.control.createUser({ first_name: 'Gleb' });
    const chat = await h.sandbox.control.createChat({
      owner_id: owner.user_id,
      title: 'Club',
      with_bot: true,
    });
    await h.sandbox.control.addUser(owner.user_id, chat.chat_id, guest.user_id);
    await h.sandbox.control.removeUser(guest.user_id, chat.chat_id); // Gleb leaves by himself
    const updates = (await h.api.getUpdates({ marker: FIRST_MARKER, timeout: 0 })).updates.filter(
      (u) => u.update_type === 'user_added' || u.update_type === 'user_removed',
    );
    const added = decodeUpdate(updates[0]) as Parameters<typeof membershipChange>[0];
    expect(added).toMatchObject({
      user: { user_id: owner.user_id },
      user_id: guest.user_id,
      inviter_id: owner.user_id,
    });
    expect(membershipChange(added)).toEqual({ member: guest.user_id, by: owner.user_id });
    const left = decodeUpdate(updates[1]) as Parameters<typeof membershipChange>[0];
    expect(membershipChange(left)).toEqual({ member: guest.user_id });
  });
});

describe('what a bot sees in a group chat', () => {
  it('without read_all_messages: commands, mentions and replies to it, in updates and in history', async () => {
    h = await sandboxClient();
    const ann = await h.sandbox.control.createUser({ first_name: 'Ann' });
    const plain = await h.sandbox.control.createChat({
      owner_id: ann.user_id,
      title: 'Plain',
      with_bot: true,
    });
    const sent = async (text: string) => h!.sandbox.control.sendText(ann.user_id, plain.chat_id, text);
    await sent('good morning all');
    await sent('/book 4');
    await sent(`what do you think, @${h.sandbox.bot.username}?`);
    const botMessage = await h.api.sendMessage({ chat_id: plain.chat_id, text: 'Tables are free.' });
    await h.sandbox.control.sendMessage(ann.user_id, plain.chat_id, {
      text: 'thanks',
      reply_to: botMessage.message.body.mid,
    });
    await sent('lunch?');
    const texts = (await h.api.getUpdates({ marker: FIRST_MARKER, timeout: 0 })).updates
      .filter((u) => u.update_type === 'message_created')
      .map((u) => (u as { message: { body: { text?: string } } }).message.body.text);
    expect(texts).toEqual(['/book 4', `what do you think, @${h.sandbox.bot.username}?`, 'thanks']);
    const history = (await h.api.getMessages({ chat_id: plain.chat_id })).messages.map((m) => m.body.text);
    expect(history).not.toContain('good morning all');
    expect(history).not.toContain('lunch?');
    expect(history).toContain('Tables are free.');

    // With read_all_messages (or groupPrivacy: false), everything.
    const open = await h.sandbox.control.createChat({
      owner_id: ann.user_id,
      title: 'Open',
      with_bot: true,
      bot_permissions: ['read_all_messages'],
    });
    await h.sandbox.control.sendText(ann.user_id, open.chat_id, 'lunch?');
    const all = (await h.api.getMessages({ chat_id: open.chat_id })).messages.map((m) => m.body.text);
    expect(all).toContain('lunch?');
  });
});
