import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog } from './helpers.ts';

let h: SandboxClient;
let clock = Date.UTC(2026, 5, 1);
beforeEach(async () => {
  clock = Date.UTC(2026, 5, 1);
  h = await sandboxClient({ now: () => clock });
});
afterEach(() => h.close());

async function group(options: { bot_permissions?: string[]; type?: 'chat' | 'channel' } = {}) {
  const c = h.sandbox.control;
  const owner = await c.createUser({ first_name: 'Olga' });
  const member = await c.createUser({ first_name: 'Max' });
  const chat = await c.createChat({
    owner_id: owner.user_id,
    title: 'Team',
    member_ids: [member.user_id],
    with_bot: true,
    ...options,
  });
  return { owner, member, chatId: chat.chat_id };
}

describe('bot identity and commands', () => {
  it('GET /me answers the bot; PATCH /me/commands sets and clears the menu', async () => {
    const me = await h.api.getMyInfo();
    expect(me).toMatchObject({ user_id: h.sandbox.bot.user_id, is_bot: true, name: expect.any(String) });
    const set = await h.api.editMyCommands({
      commands: [{ name: 'start', description: 'Begin' }, { name: 'help' }],
    });
    expect(set.commands).toEqual([{ name: 'start', description: 'Begin' }, { name: 'help' }]);
    expect((await h.api.getMyInfo()).commands).toHaveLength(2);
    await h.api.editMyCommands({ commands: [] });
    expect((await h.api.getMyInfo()).commands).toBeUndefined();
  });
});

describe('chats', () => {
  it('gets and edits a group chat, pins and unpins, sends actions', async () => {
    const { chatId, owner } = await group({ bot_permissions: ['change_chat_info', 'pin_message', 'write'] });
    const chat = await h.api.getChat({ chat_id: chatId });
    expect(chat).toMatchObject({
      chat_id: chatId,
      type: 'chat',
      status: 'active',
      title: 'Team',
      participants_count: 3,
      owner_id: owner.user_id,
    });
    expect(chatId).toBeLessThan(0);
    const edited = await h.api.editChat({ chat_id: chatId, title: 'Renamed' });
    expect(edited.title).toBe('Renamed');
    const m = await h.api.sendMessage({ chat_id: chatId, text: 'pin me' });
    expect(await h.api.getPinnedMessage({ chat_id: chatId })).toEqual({});
    await h.api.pinMessage({ chat_id: chatId, message_id: m.message.body.mid });
    expect((await h.api.getPinnedMessage({ chat_id: chatId })).message?.body.text).toBe('pin me');
    expect((await h.api.getChat({ chat_id: chatId })).pinned_message?.body.mid).toBe(m.message.body.mid);
    await h.api.unpinMessage({ chat_id: chatId });
    expect((await h.api.getPinnedMessage({ chat_id: chatId })).message).toBeUndefined();
    expect(await h.api.sendAction({ chat_id: chatId, action: 'typing_on' })).toEqual({ success: true });
  });

  it('shows a dialog with dialog_with_user and a positive id', async () => {
    const { user, chatId } = await personInDialog(h.sandbox, 'Dana');
    const chat = await h.api.getChat({ chat_id: chatId });
    expect(chatId).toBeGreaterThan(0);
    expect(chat).toMatchObject({
      type: 'dialog',
      dialog_with_user: { user_id: user.user_id, name: 'Dana Test' },
    });
    expect(await h.api.getMembership({ chat_id: chatId })).toMatchObject({ user_id: h.sandbox.bot.user_id });
  });

  it('answers 403 without rights, 403 outside the chat, 404 for unknown chats', async () => {
    const { chatId } = await group();
    await expect(h.api.editChat({ chat_id: chatId, title: 'x' })).rejects.toMatchObject({
      status: 403,
      code: 'access.denied',
    });
    await expect(h.api.getChat({ chat_id: -1 })).rejects.toMatchObject({ status: 404, code: 'not.found' });
    const c = h.sandbox.control;
    const other = await c.createUser();
    const closed = await c.createChat({ owner_id: other.user_id, title: 'Private' });
    await expect(h.api.getChat({ chat_id: closed.chat_id })).rejects.toMatchObject({
      status: 403,
      code: 'chat.denied',
    });
    await expect(h.api.sendMessage({ chat_id: closed.chat_id, text: 'hi' })).rejects.toMatchObject({
      status: 403,
    });
  });

  it('answers the removed endpoints as the platform does', async () => {
    const get = await fetch(`${h.sandbox.baseUrl}/chats`, { headers: { authorization: h.sandbox.token } });
    expect(get.status).toBe(404);
    expect(await get.json()).toMatchObject({
      code: 'not.found',
      message: expect.stringContaining('removed'),
    });
    const del = await fetch(`${h.sandbox.baseUrl}/chats/-1`, {
      method: 'DELETE',
      headers: { authorization: h.sandbox.token },
    });
    expect(del.status).toBe(405);
    expect(await del.json()).toMatchObject({ code: 'method.not.allowed' });
  });

  it('a channel needs the write right to post; posts carry views and no sender', async () => {
    const { chatId, owner } = await group({ type: 'channel' });
    await expect(h.api.sendMessage({ chat_id: chatId, text: 'news' })).rejects.toMatchObject({
      status: 403,
      code: 'access.denied',
    });
    await h.sandbox.control.setBotAdminRights(owner.user_id, chatId, ['write']);
    const post = await h.api.sendMessage({ chat_id: chatId, text: 'news' });
    expect(post.message).toMatchObject({ recipient: { chat_type: 'channel' }, stat: { views: 0 } });
    expect(post.message.sender).toBeUndefined();
  });
});

describe('members and admins', () => {
  it('lists members with pages, admins with permissions (legacy names included)', async () => {
    const { chatId, owner, member } = await group({
      bot_permissions: ['write', 'edit', 'delete', 'add_admins', 'add_remove_members'],
    });
    const page1 = await h.api.getMembers({ chat_id: chatId, count: 2 });
    expect(page1.members).toHaveLength(2);
    const page2 = await h.api.getMembers({ chat_id: chatId, count: 2, marker: page1.marker });
    expect(page2.members).toHaveLength(1);
    expect(page2.marker).toBeUndefined();
    const some = await h.api.getMembers({ chat_id: chatId, user_ids: [member.user_id] });
    expect(some.members.map((m) => m.user_id)).toEqual([member.user_id]);

    const me = await h.api.getMembership({ chat_id: chatId });
    expect(me.permissions).toEqual(
      expect.arrayContaining(['write', 'edit', 'delete', 'post_edit_delete_message', 'edit_message']),
    );
    const admins = await h.api.getAdmins({ chat_id: chatId });
    expect(admins.members.map((m) => m.user_id).sort()).toEqual(
      [owner.user_id, h.sandbox.bot.user_id].sort(),
    );

    await h.api.setAdmins({
      chat_id: chatId,
      admins: [{ user_id: member.user_id, permissions: ['pin_message', 'edit_message'] }],
    });
    const promoted = (await h.api.getMembers({ chat_id: chatId, user_ids: [member.user_id] })).members[0]!;
    expect(promoted).toMatchObject({
      is_admin: true,
      permissions: expect.arrayContaining(['pin_message', 'edit']),
    });
    await h.api.revokeAdmin({ chat_id: chatId, user_id: member.user_id });
    const demoted = (await h.api.getMembers({ chat_id: chatId, user_ids: [member.user_id] })).members[0]!;
    expect(demoted.is_admin).toBe(false);
    // Revoking keeps the person in the chat; removing takes them out.
    await h.api.removeMember({ chat_id: chatId, user_id: member.user_id, block: true });
    expect((await h.api.getMembers({ chat_id: chatId })).members.map((m) => m.user_id)).not.toContain(
      member.user_id,
    );
    await expect(h.api.removeMember({ chat_id: chatId, user_id: owner.user_id })).rejects.toMatchObject({
      status: 403,
    });
    await expect(
      h.api.setAdmins({ chat_id: chatId, admins: [{ user_id: owner.user_id, permissions: ['fly'] }] }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('POST /chats/{id}/members works until 30 September 2026 and is gone after', async () => {
    const { chatId } = await group({ bot_permissions: ['add_remove_members'] });
    const newcomer = await h.sandbox.control.createUser({ first_name: 'New' });
    expect(await h.api.addMembers({ chat_id: chatId, user_ids: [newcomer.user_id] })).toMatchObject({
      success: true,
    });
    clock = Date.UTC(2026, 9, 1);
    await expect(h.api.addMembers({ chat_id: chatId, user_ids: [newcomer.user_id] })).rejects.toMatchObject({
      status: 404,
    });
  });

  it('the bot leaves a chat; it then sees it no more', async () => {
    const { chatId } = await group();
    expect(await h.api.leaveChat({ chat_id: chatId })).toMatchObject({ success: true });
    await expect(h.api.getChat({ chat_id: chatId })).rejects.toMatchObject({ status: 403 });
  });

  it('deleting other people’s messages needs the delete right', async () => {
    const { chatId, owner, member } = await group();
    const said = await h.sandbox.control.sendText(member.user_id, chatId, 'spam');
    await expect(h.api.deleteMessage({ message_id: said.body.mid })).rejects.toMatchObject({ status: 403 });
    await expect(h.api.editMessage({ message_id: said.body.mid, text: 'x' })).rejects.toMatchObject({
      status: 403,
    });
    await h.sandbox.control.setBotAdminRights(owner.user_id, chatId, ['delete']);
    await h.api.deleteMessage({ message_id: said.body.mid });
    expect((await h.sandbox.control.view(member.user_id, chatId)).messages).toEqual([]);
  });
});

describe('comments on channel posts', () => {
  it('reads, writes, edits and deletes comments', async () => {
    const { chatId, owner } = await group({ type: 'channel', bot_permissions: ['write', 'delete'] });
    const post = await h.sandbox.control.postToChannel(owner.user_id, chatId, 'Post');
    const changes: string[] = [];
    const stream = await h.sandbox.control.events(
      (e) => {
        if (e.type === 'comments.changed') changes.push(e.post_id);
      },
      { chat_id: chatId },
    );
    const theirs = await h.sandbox.control.comment(owner.user_id, post.body.mid, 'First!');
    const mine = await h.api.sendComment({ message_id: post.body.mid, text: 'Thanks' });
    expect(mine.message.body.text).toBe('Thanks');
    const list = await h.api.getComments({ message_id: post.body.mid });
    expect(list.messages.map((m) => m.body.text)).toEqual(['First!', 'Thanks']);
    await h.api.editComment({
      message_id: post.body.mid,
      comment_id: mine.message.body.mid,
      text: 'Thank you',
    });
    expect(
      (await h.api.getComment({ message_id: post.body.mid, comment_id: mine.message.body.mid })).body.text,
    ).toBe('Thank you');
    await expect(
      h.api.editComment({ message_id: post.body.mid, comment_id: theirs.body.mid, text: 'hijack' }),
    ).rejects.toMatchObject({ status: 403 });
    await h.api.deleteComment({ message_id: post.body.mid, comment_id: theirs.body.mid });
    expect((await h.api.getComments({ message_id: post.body.mid })).messages).toHaveLength(1);
    const view = await h.sandbox.control.view(owner.user_id, chatId);
    expect(view.messages[0]!.comments).toHaveLength(1);
    // added twice, edited once, deleted once: the web page hears of each
    await eventually('four comments.changed events', () => (changes.length === 4 ? true : undefined), 10_000);
    expect(new Set(changes)).toEqual(new Set([post.body.mid]));
    stream.close();
  });
});
