/**
 * The sandbox's updates have the same top-level fields as updates recorded from the real platform
 * (copies in test/client/fixtures/payloads/webhook.*.json, Apache-2.0), so code tested here meets no surprise there.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog } from './helpers.ts';

/** Top-level keys of each recorded webhook update, sorted. */
const RECORDED: Record<string, string[]> = {
  bot_added: ['chat_id', 'is_channel', 'timestamp', 'update_type', 'user', 'user_id'],
  bot_removed: ['chat_id', 'is_channel', 'timestamp', 'update_type', 'user', 'user_id'],
  bot_started: ['chat_id', 'timestamp', 'update_type', 'user', 'user_id', 'user_locale'],
  bot_stopped: ['chat_id', 'timestamp', 'update_type', 'user', 'user_locale'],
  chat_title_changed: ['chat_id', 'timestamp', 'title', 'update_type', 'user', 'user_id'],
  dialog_cleared: ['chat_id', 'timestamp', 'update_type', 'user', 'user_locale'],
  dialog_muted: ['chat_id', 'muted_until', 'timestamp', 'update_type', 'user', 'user_locale'],
  dialog_removed: ['chat_id', 'timestamp', 'update_type', 'user', 'user_locale'],
  dialog_unmuted: ['chat_id', 'timestamp', 'update_type', 'user', 'user_locale'],
  message_callback: ['callback', 'message', 'timestamp', 'update_type', 'user_locale'],
  message_created: ['message', 'timestamp', 'update_type'],
  message_edited: ['message', 'timestamp', 'update_type'],
  message_removed: ['chat_id', 'message_id', 'timestamp', 'update_type', 'user_id'],
  user_added: ['chat_id', 'inviter_id', 'is_channel', 'timestamp', 'update_type', 'user', 'user_id'],
  user_removed: ['admin_id', 'chat_id', 'is_channel', 'timestamp', 'update_type', 'user', 'user_id'],
};
const RECORDED_USER = ['first_name', 'is_bot', 'last_activity_time', 'last_name', 'name', 'user_id'];
const RECORDED_MESSAGE = ['body', 'recipient', 'sender', 'timestamp'];

let h: SandboxClient;
beforeEach(async () => {
  h = await sandboxClient();
});
afterEach(() => h.close());

describe('fidelity to recorded platform updates', () => {
  it('produces updates with the recorded top-level fields', async () => {
    const produced: Record<string, unknown>[] = [];
    h.sandbox.onUpdate((u) => produced.push(u));
    const c = h.sandbox.control;
    const { user: ann } = await personInDialog(h.sandbox, 'Ann'); // no deep-link payload, as recorded
    const bob = await c.createUser({ first_name: 'Bob', last_name: 'B' });
    const said = await c.sendText(ann.user_id, 'dialog', 'hi');
    await c.editMessage(ann.user_id, said.body.mid, 'hi!');
    await c.deleteMessage(ann.user_id, said.body.mid);
    const menu = await h.api.sendMessage({
      user_id: ann.user_id,
      text: 'm',
      attachments: [
        { type: 'inline_keyboard', payload: { buttons: [[{ type: 'callback', text: 'A', payload: 'a' }]] } },
      ],
    });
    await c.pressButton(ann.user_id, menu.message.body.mid, 'a');
    await c.mute(ann.user_id);
    await c.unmute(ann.user_id);
    await c.clearDialog(ann.user_id);
    await c.removeDialog(ann.user_id);
    await c.stopBot(ann.user_id);
    const group = await c.createChat({ owner_id: ann.user_id, title: 'G', with_bot: true });
    await c.addUser(ann.user_id, group.chat_id, bob.user_id);
    await c.renameChat(ann.user_id, group.chat_id, 'G2');
    await c.sendText(ann.user_id, group.chat_id, '/hello@bot in the group');
    await c.removeUser(ann.user_id, group.chat_id, bob.user_id);
    await c.removeBot(ann.user_id, group.chat_id);

    // The recorded message_created is from a group; in a dialog the update also carries the person's
    // user_locale ("available only in dialogs", says the OpenAPI text).
    const inChat = (u: Record<string, unknown>) =>
      (u.message as { recipient?: { chat_type?: string } } | undefined)?.recipient?.chat_type === 'chat';
    const dialogMessage = produced.find((u) => u.update_type === 'message_created' && !inChat(u));
    expect(Object.keys(dialogMessage!).sort()).toEqual([...RECORDED.message_created!, 'user_locale'].sort());
    for (const [type, keys] of Object.entries(RECORDED)) {
      const update = produced.find(
        (u) => u.update_type === type && (type !== 'message_created' || inChat(u)),
      );
      expect(update, type).toBeDefined();
      expect(Object.keys(update!).sort(), type).toEqual(keys);
      const person = update!.user as Record<string, unknown> | undefined;
      if (person) expect(Object.keys(person).sort(), `${type}.user`).toEqual(RECORDED_USER);
      const message = update!.message as Record<string, unknown> | undefined;
      if (message) expect(Object.keys(message).sort(), `${type}.message`).toEqual(RECORDED_MESSAGE);
    }
  });
});
