import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeUpdate, UPDATE_TYPES } from '../../src/client/schemas/index.ts';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog } from './helpers.ts';

let h: SandboxClient;
beforeEach(async () => {
  h = await sandboxClient();
});
afterEach(() => h.close());

describe('updates by long polling', () => {
  it('produces every update type through people actions, each decoding with the client schemas', async () => {
    const c = h.sandbox.control;
    const produced: Record<string, unknown>[] = [];
    h.sandbox.onUpdate((u) => produced.push(u));
    const { marker } = await h.api.getUpdates({ timeout: 0 });
    const { user: ann, chatId } = await personInDialog(h.sandbox, 'Ann', 'ref-42');
    const bob = await c.createUser({ first_name: 'Bob' });
    const said = await c.sendText(ann.user_id, 'dialog', 'hi');
    await c.editMessage(ann.user_id, said.body.mid, 'hi!');
    await c.deleteMessage(ann.user_id, said.body.mid);
    const menu = await h.api.sendMessage({
      chat_id: chatId,
      text: 'Pick',
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
    const group = await c.createChat({ owner_id: ann.user_id, title: 'Team', with_bot: true });
    await c.addUser(ann.user_id, group.chat_id, bob.user_id);
    await c.renameChat(ann.user_id, group.chat_id, 'Team 2');
    await c.removeUser(ann.user_id, group.chat_id, bob.user_id);
    await c.removeBot(ann.user_id, group.chat_id);
    const channel = await c.createChat({
      owner_id: ann.user_id,
      title: 'News',
      type: 'channel',
      with_bot: true,
      bot_permissions: ['write'],
    });
    const post = await c.postToChannel(ann.user_id, channel.chat_id, 'Post');
    const comment = await c.comment(ann.user_id, post.body.mid, 'Nice');
    await c.editComment(ann.user_id, comment.body.mid, 'Nicer');
    await c.deleteComment(ann.user_id, comment.body.mid);
    await c.setBotAdminRights(ann.user_id, channel.chat_id, ['write', 'edit', 'delete']);

    const types = new Set(produced.map((u) => u.update_type as string));
    expect([...types].sort()).toEqual([...UPDATE_TYPES].sort());
    for (const raw of produced) {
      const u = decodeUpdate(raw);
      expect(u.update_type, JSON.stringify(raw)).not.toBe('unknown');
      expect(typeof u.timestamp).toBe('number');
    }
    const started = produced.find((u) => u.update_type === 'bot_started');
    expect(started).toMatchObject({
      chat_id: chatId,
      payload: 'ref-42',
      user: { user_id: ann.user_id, name: 'Ann Test' },
    });
    const rights = produced.find((u) => u.update_type === 'bot_admin_permissions_changed');
    expect(rights).toMatchObject({
      chat_id: channel.chat_id,
      permissions: expect.arrayContaining(['write', 'post_edit_delete_message']),
    });

    // Long polling got all of them except the webhook-only one, in order, decoded by the client.
    const polled = await h.api.getUpdates({ timeout: 0, limit: 1000, marker });
    expect(polled.undecodable).toEqual([]);
    expect(polled.updates.map((u) => u.update_type)).toEqual(
      produced.map((u) => u.update_type).filter((t) => t !== 'bot_admin_permissions_changed'),
    );
  });

  it('honours marker and limit: a marker acknowledges everything before it', async () => {
    const start = await h.api.getUpdates({ timeout: 0 });
    const { user } = await personInDialog(h.sandbox);
    for (const t of ['1', '2', '3']) await h.sandbox.control.sendText(user.user_id, 'dialog', t);
    const first = await h.api.getUpdates({ timeout: 0, limit: 2, marker: start.marker });
    expect(first.updates.map((u) => u.update_type)).toEqual(['bot_started', 'message_created']);
    const second = await h.api.getUpdates({ timeout: 0, marker: first.marker });
    expect(
      second.updates.map((u) => (u.update_type === 'message_created' ? u.message.body.text : u.update_type)),
    ).toEqual(['2', '3']);
    // Repeating the same marker repeats the batch (nothing is lost if a response was lost).
    const again = await h.api.getUpdates({ timeout: 0, marker: first.marker });
    expect(again.updates).toHaveLength(2);
    // Without a marker: only the most recent update the last marker did not acknowledge (OpenAPI text).
    const unacked = await h.api.getUpdates({ timeout: 0 });
    expect(
      unacked.updates.map((u) => (u.update_type === 'message_created' ? u.message.body.text : '')),
    ).toEqual(['3']);
    expect(unacked.marker).toBe(second.marker);
    const done = await h.api.getUpdates({ timeout: 0, marker: second.marker });
    expect(done.updates).toEqual([]);
    expect(done.marker).toBe(second.marker);
  });

  it('holds a poll until an update arrives, and filters by types', async () => {
    const { user } = await personInDialog(h.sandbox);
    const start = await h.api.getUpdates({ timeout: 0 });
    const held = h.api.getUpdates({ timeout: 30, marker: start.marker, types: ['message_created'] });
    let settled = false;
    void held.then(() => {
      settled = true;
    });
    // A poll for every type from the same marker is woken by the mute (not a wanted type of the held
    // poll): once it has answered, the mute has been pushed and the held poll has kept waiting.
    const everything = h.api.getUpdates({ timeout: 30, marker: start.marker });
    await h.sandbox.control.mute(user.user_id);
    expect((await everything).updates.map((u) => u.update_type)).toEqual(['dialog_muted']);
    expect(settled).toBe(false);
    await h.sandbox.control.sendText(user.user_id, 'dialog', 'wake up');
    const got = await held;
    expect(got.updates.map((u) => u.update_type)).toEqual(['message_created']);
  });

  it('refuses long polling with 405 while a webhook subscription is active', async () => {
    const server: Server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      await h.api.subscribe({ url });
      await expect(h.api.getUpdates({ timeout: 0 })).rejects.toMatchObject({ status: 405 });
      await h.api.unsubscribe({ url });
      await expect(h.api.getUpdates({ timeout: 0 })).resolves.toMatchObject({ updates: [] });
    } finally {
      server.close();
    }
  });
});
