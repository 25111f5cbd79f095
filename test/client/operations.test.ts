/**
 * Every operation against a local server: the request must arrive with the right method, path,
 * query, body and headers, and the (recorded, where one exists) answer must decode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { OPERATIONS, type OperationName } from '../../src/client/operations.ts';
import { encodeQuery } from '../../src/client/transport.ts';
import { type FakePlatform, payload, startFakePlatform } from './fake-platform.ts';

const TOKEN = 'test-token-7f3a9c';
const MID = 'mid.ffffbdb48e6c3775019d496b34394b84';
const CHAT = -70000000000005;

const recordedUpdates = payload('update.message_created.json') as { updates: Array<{ message: unknown }> };
const MESSAGE = recordedUpdates.updates[0]!.message as { body: { mid: string } };
const COMMENT = {
  sender: { user_id: 5, first_name: 'Ann', is_bot: false, name: 'Ann' },
  recipient: { chat_id: -100, chat_type: 'channel' },
  timestamp: 1775053255737,
  body: { mid: 'mid.0000000000000000000000000000c0c0', seq: 1, text: 'nice post' },
};
const OK = { success: true, message: null };

interface Case {
  call: (api: BotApi) => Promise<unknown>;
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  reply: unknown;
  // biome-ignore lint/suspicious/noExplicitAny: each case reads a different result type
  check: (result: any) => void;
}

const kb = {
  type: 'inline_keyboard',
  payload: { buttons: [[{ type: 'callback', text: 'Yes', payload: 'y' }]] },
};

const CASES: Record<OperationName, Case> = {
  getMyInfo: {
    call: (api) => api.getMyInfo(),
    method: 'GET',
    path: '/me',
    reply: payload('botInfo.ok.json'),
    check: (r) => expect(r).toMatchObject({ user_id: 123123123, is_bot: true, username: 'test-bot' }),
  },
  editMyCommands: {
    call: (api) => api.editMyCommands({ commands: [{ name: 'start', description: 'Begin' }] }),
    method: 'PATCH',
    path: '/me/commands',
    body: { commands: [{ name: 'start', description: 'Begin' }] },
    reply: { commands: [{ name: 'start', description: 'Begin' }] },
    check: (r) => expect(r.commands).toEqual([{ name: 'start', description: 'Begin' }]),
  },
  getChat: {
    call: (api) => api.getChat({ chat_id: CHAT }),
    method: 'GET',
    path: `/chats/${CHAT}`,
    reply: payload('chats/get-chat-by-id.json'),
    check: (r) => expect(r).toMatchObject({ chat_id: CHAT, type: 'chat', title: 'chat title' }),
  },
  editChat: {
    call: (api) => api.editChat({ chat_id: CHAT, title: 'chat title', notify: false }),
    method: 'PATCH',
    path: `/chats/${CHAT}`,
    body: { title: 'chat title', notify: false },
    reply: payload('chats/chat-path-result.json'),
    check: (r) => expect(r.pinned_message.body.mid).toBe('mid.sha-more'),
  },
  sendAction: {
    call: (api) => api.sendAction({ chat_id: CHAT, action: 'typing_on' }),
    method: 'POST',
    path: `/chats/${CHAT}/actions`,
    body: { action: 'typing_on' },
    reply: OK,
    check: (r) => expect(r).toEqual({ success: true }),
  },
  getPinnedMessage: {
    call: (api) => api.getPinnedMessage({ chat_id: CHAT }),
    method: 'GET',
    path: `/chats/${CHAT}/pin`,
    reply: payload('chats/get-pin-message.json'),
    check: (r) => expect(r.message.body.text).toBe('hi'),
  },
  pinMessage: {
    call: (api) => api.pinMessage({ chat_id: CHAT, message_id: MID, notify: true }),
    method: 'PUT',
    path: `/chats/${CHAT}/pin`,
    body: { message_id: MID, notify: true },
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  unpinMessage: {
    call: (api) => api.unpinMessage({ chat_id: CHAT }),
    method: 'DELETE',
    path: `/chats/${CHAT}/pin`,
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  getMembership: {
    call: (api) => api.getMembership({ chat_id: CHAT }),
    method: 'GET',
    path: `/chats/${CHAT}/members/me`,
    reply: payload('chats/get-membership.json'),
    check: (r) => expect(r).toMatchObject({ user_id: 229229229, is_admin: true }),
  },
  leaveChat: {
    call: (api) => api.leaveChat({ chat_id: CHAT }),
    method: 'DELETE',
    path: `/chats/${CHAT}/members/me`,
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  getAdmins: {
    call: (api) => api.getAdmins({ chat_id: CHAT }),
    method: 'GET',
    path: `/chats/${CHAT}/members/admins`,
    reply: payload('chats/get-admins.json'),
    check: (r) => expect(r.members[0].permissions).toContain('write'),
  },
  setAdmins: {
    call: (api) =>
      api.setAdmins({
        chat_id: CHAT,
        admins: [{ user_id: 7, permissions: ['write', 'edit'], alias: 'mod' }],
      }),
    method: 'POST',
    path: `/chats/${CHAT}/members/admins`,
    body: { admins: [{ user_id: 7, permissions: ['write', 'edit'], alias: 'mod' }] },
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  revokeAdmin: {
    call: (api) => api.revokeAdmin({ chat_id: CHAT, user_id: 7 }),
    method: 'DELETE',
    path: `/chats/${CHAT}/members/admins/7`,
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  getMembers: {
    call: (api) => api.getMembers({ chat_id: CHAT, user_ids: [1, 2, 3], count: 50 }),
    method: 'GET',
    path: `/chats/${CHAT}/members`,
    query: { user_ids: '1,2,3', count: '50' },
    reply: payload('chats/get-members.json'),
    check: (r) => expect(r.members.length).toBeGreaterThan(0),
  },
  addMembers: {
    call: (api) => api.addMembers({ chat_id: CHAT, user_ids: [8, 9] }),
    method: 'POST',
    path: `/chats/${CHAT}/members`,
    body: { user_ids: [8, 9] },
    reply: { success: false, message: 'some failed', failed_user_ids: [9] },
    check: (r) => expect(r.failed_user_ids).toEqual([9]),
  },
  removeMember: {
    call: (api) => api.removeMember({ chat_id: CHAT, user_id: 8, block: true }),
    method: 'DELETE',
    path: `/chats/${CHAT}/members`,
    query: { user_id: '8', block: 'true' },
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  getSubscriptions: {
    call: (api) => api.getSubscriptions(),
    method: 'GET',
    path: '/subscriptions',
    reply: { subscriptions: [{ url: 'https://bot.example/hook', time: 1775053255737, update_types: null }] },
    check: (r) =>
      expect(r.subscriptions[0]).toEqual({ url: 'https://bot.example/hook', time: 1775053255737 }),
  },
  subscribe: {
    call: (api) =>
      api.subscribe({
        url: 'https://bot.example/hook',
        secret: 's3cret_value',
        update_types: ['message_created'],
      }),
    method: 'POST',
    path: '/subscriptions',
    body: { url: 'https://bot.example/hook', secret: 's3cret_value', update_types: ['message_created'] },
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  unsubscribe: {
    call: (api) => api.unsubscribe({ url: 'https://bot.example/hook?a=1&b=2' }),
    method: 'DELETE',
    path: '/subscriptions',
    query: { url: 'https://bot.example/hook?a=1&b=2' },
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  getUploadUrl: {
    call: (api) => api.getUploadUrl({ type: 'video' }),
    method: 'POST',
    path: '/uploads',
    query: { type: 'video' },
    reply: { url: 'https://vu.example/upload.do?sig=abc', token: 'vtok' },
    check: (r) => expect(r).toEqual({ url: 'https://vu.example/upload.do?sig=abc', token: 'vtok' }),
  },
  getMessages: {
    call: (api) => api.getMessages({ message_ids: [MID, 'mid.2'] }),
    method: 'GET',
    path: '/messages',
    query: { message_ids: `${MID},mid.2` },
    reply: { messages: [MESSAGE] },
    check: (r) => expect(r.messages[0].body.mid).toBe(MID),
  },
  sendMessage: {
    call: (api) =>
      api.sendMessage({
        user_id: 42,
        text: '*Hi*',
        format: 'markdown',
        attachments: [kb as never],
        notify: false,
      }),
    method: 'POST',
    path: '/messages',
    query: { user_id: '42' },
    body: { text: '*Hi*', format: 'markdown', attachments: [kb], notify: false },
    reply: { message: MESSAGE },
    check: (r) => expect(r.message.body.mid).toBe(MID),
  },
  editMessage: {
    call: (api) => api.editMessage({ message_id: MID, text: 'edited' }),
    method: 'PUT',
    path: '/messages',
    query: { message_id: MID },
    body: { text: 'edited' },
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  deleteMessage: {
    call: (api) => api.deleteMessage({ message_id: MID }),
    method: 'DELETE',
    path: '/messages',
    query: { message_id: MID },
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  getMessage: {
    call: (api) => api.getMessage({ message_id: MID }),
    method: 'GET',
    path: `/messages/${MID}`,
    reply: MESSAGE,
    check: (r) => expect(r.link.type).toBe('forward'),
  },
  getComments: {
    call: (api) => api.getComments({ message_id: MID, count: 10, comment_ids: ['c1', 'c2'] }),
    method: 'GET',
    path: `/messages/${MID}/comments`,
    query: { count: '10', comment_ids: 'c1,c2' },
    reply: { messages: [COMMENT], marker: 12 },
    check: (r) => expect(r).toMatchObject({ marker: 12, messages: [{ body: { text: 'nice post' } }] }),
  },
  getComment: {
    call: (api) => api.getComment({ message_id: MID, comment_id: 'c1' }),
    method: 'GET',
    path: `/messages/${MID}/comments/c1`,
    reply: COMMENT,
    check: (r) => expect(r.body.text).toBe('nice post'),
  },
  sendComment: {
    call: (api) => api.sendComment({ message_id: MID, text: 'thanks', disable_link_preview: true }),
    method: 'POST',
    path: `/messages/${MID}/comments`,
    query: { disable_link_preview: 'true' },
    body: { text: 'thanks' },
    reply: { message: COMMENT },
    check: (r) => expect(r.message.body.mid).toBe(COMMENT.body.mid),
  },
  editComment: {
    call: (api) => api.editComment({ message_id: MID, comment_id: 'c1', text: 'fixed' }),
    method: 'PUT',
    path: `/messages/${MID}/comments`,
    query: { comment_id: 'c1' },
    body: { text: 'fixed' },
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  deleteComment: {
    call: (api) => api.deleteComment({ message_id: MID, comment_id: 'c1' }),
    method: 'DELETE',
    path: `/messages/${MID}/comments`,
    query: { comment_id: 'c1' },
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  getVideoAttachmentDetails: {
    call: (api) => api.getVideoAttachmentDetails({ video_token: 'v/tok+1' }),
    method: 'GET',
    path: '/videos/v%2Ftok%2B1',
    reply: {
      token: 'v/tok+1',
      urls: { mp4_720: 'https://v.example/720.mp4' },
      width: 1280,
      height: 720,
      duration: 9,
    },
    check: (r) => expect(r).toMatchObject({ duration: 9, urls: { mp4_720: 'https://v.example/720.mp4' } }),
  },
  answerCallback: {
    call: (api) => api.answerCallback({ callback_id: 'cb-1', notification: 'Saved' }),
    method: 'POST',
    path: '/answers',
    query: { callback_id: 'cb-1' },
    body: { notification: 'Saved' },
    reply: OK,
    check: (r) => expect(r).toEqual({ success: true }),
  },
  answerCallbackResult: {
    call: (api) =>
      api.answerCallbackResult({ callback_id: 'cb-2', message: { text: 'Done', attachments: [] } }),
    method: 'POST',
    path: '/answers',
    query: { callback_id: 'cb-2' },
    body: { message: { text: 'Done', attachments: [] } },
    reply: OK,
    check: (r) => expect(r.success).toBe(true),
  },
  getUpdates: {
    call: (api) =>
      api.getUpdates({ marker: 77, limit: 100, timeout: 0, types: ['message_callback', 'bot_started'] }),
    method: 'GET',
    path: '/updates',
    query: { marker: '77', limit: '100', timeout: '0', types: 'message_callback,bot_started' },
    reply: payload('update.message_callback.json'),
    check: (r) => {
      expect(r.updates[0].update_type).toBe('message_callback');
      expect(r.updates[0].callback.payload).toBe('picture');
      expect(typeof r.marker).toBe('number');
      expect(r.undecodable).toEqual([]);
    },
  },
};

let platform: FakePlatform;
let api: BotApi;
beforeAll(async () => {
  platform = await startFakePlatform();
  api = new BotApi({ token: TOKEN, baseUrl: platform.url });
});
afterAll(async () => {
  await api.close();
  await platform.close();
});

describe('every operation reaches the right endpoint and decodes its answer', () => {
  it('covers every operation of the table, and only those', () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(OPERATIONS).sort());
    for (const op of Object.keys(OPERATIONS))
      expect(typeof (api as unknown as Record<string, unknown>)[op], op).toBe('function');
    for (const removed of ['getChats', 'deleteChat'])
      expect((api as unknown as Record<string, unknown>)[removed]).toBeUndefined();
  });

  for (const [op, c] of Object.entries(CASES)) {
    it(op, async () => {
      platform.respond({ body: c.reply });
      const before = platform.requests.length;
      const result = await c.call(api);
      expect(platform.requests.length).toBe(before + 1);
      const req = platform.requests.at(-1)!;
      expect(req.method).toBe(c.method);
      expect(req.path).toBe(c.path);
      expect(req.query).toEqual(c.query ?? {});
      expect(req.headers.authorization).toBe(TOKEN);
      expect(req.headers.accept).toBe('application/json');
      if (c.body === undefined) {
        expect(req.rawBody).toBe('');
      } else {
        expect(req.headers['content-type']).toBe('application/json');
        expect(req.body).toEqual(c.body);
      }
      c.check(result);
    });
  }

  it('call(op, args) is the same as the typed method', async () => {
    platform.respond({ body: { message: MESSAGE } });
    const result = await api.call('sendMessage', { chat_id: CHAT, text: 'via call' });
    expect(result.message.body.mid).toBe(MID);
    expect(platform.requests.at(-1)).toMatchObject({ path: '/messages', query: { chat_id: String(CHAT) } });
  });
});

describe('query encoding', () => {
  it('joins arrays with commas, escapes values, leaves out absent values and empty arrays', () => {
    expect(
      encodeQuery({ message_ids: ['mid.a', 'mid.b'], url: 'https://x/?a=1&b=2', marker: undefined }),
    ).toBe('?message_ids=mid.a,mid.b&url=https%3A%2F%2Fx%2F%3Fa%3D1%26b%3D2');
    expect(encodeQuery({ types: [], marker: null })).toBe('');
  });
});
