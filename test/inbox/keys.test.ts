import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeUpdate, membershipChange } from '../../src/client/schemas/index.ts';
import { canonicalUpdateJson, conversationKey, dedupeKey } from '../../src/inbox/keys.ts';

const payloads = new URL('../client/fixtures/payloads/', import.meta.url);
const webhook = (type: string) => JSON.parse(readFileSync(new URL(`webhook.${type}.json`, payloads), 'utf8'));

const groupMessage = (chatId: number, userId: number, mid: string) => ({
  update_type: 'message_created',
  timestamp: 1,
  message: {
    recipient: { chat_id: chatId, chat_type: 'chat' },
    sender: { user_id: userId, first_name: 'A', is_bot: false, last_activity_time: 0 },
    timestamp: 1,
    body: { mid, seq: 1, text: 'hi' },
  },
});

describe('conversationKey', () => {
  it('keys a dialog by the person, so messages and button presses share one conversation', () => {
    const message = webhook('message_edited'); // the samples' dialog message
    const callback = webhook('message_callback');
    expect(conversationKey(message)).toBe(`u:${message.message.sender.user_id}`);
    expect(conversationKey(callback)).toBe(`u:${callback.callback.user.user_id}`);
    // A callback whose message lost recipient.chat_id (seen in dialogs) stays in the same conversation.
    const bare = structuredClone(callback);
    delete bare.message.recipient.chat_id;
    delete bare.message.recipient.chat_type;
    expect(conversationKey(bare)).toBe(conversationKey(callback));
    const noMessage = structuredClone(callback);
    delete noMessage.message;
    expect(conversationKey(noMessage)).toBe(conversationKey(callback));
    expect(conversationKey(webhook('bot_started'))).toBe(`u:${webhook('bot_started').user.user_id}`);
  });

  it('follows the strategy in group chats', () => {
    const sample = webhook('message_created'); // a group chat message
    expect(conversationKey(sample)).toBe(
      `c:${sample.message.recipient.chat_id}:u:${sample.message.sender.user_id}`,
    );
    const update = groupMessage(-42, 7, 'mid.1');
    expect(conversationKey(update)).toBe('c:-42:u:7');
    expect(conversationKey(update, 'chat')).toBe('c:-42');
    expect(conversationKey(update, 'user')).toBe('u:7');
    expect(conversationKey(decodeUpdate(update))).toBe('c:-42:u:7');
  });

  it("keys an operator's handoff actions by the operators' chat alone, whatever the strategy", () => {
    // Two operators' Take, and a reply to a handoff message: one lane, so they are handled in the order
    // they arrived (per person they would land in different partitions, and a later Take could win).
    const take = 'AbC.hf:take:u:6.mac123';
    const press = (userId: number) => ({
      update_type: 'message_callback',
      timestamp: 1,
      callback: { timestamp: 1, callback_id: `cb${userId}`, payload: take, user: { user_id: userId } },
      message: { recipient: { chat_id: -500, chat_type: 'chat' }, body: { mid: 'mid.req', text: 'req' } },
    });
    const keyboard = (payload: string) => [
      { type: 'inline_keyboard', payload: { buttons: [[{ type: 'callback', text: 'Take', payload }]] } },
    ];
    const reply = (payload: string) => {
      const update = groupMessage(-500, 77, 'mid.r');
      return {
        ...update,
        message: {
          ...update.message,
          link: { type: 'reply', message: { mid: 'mid.req', text: 'req', attachments: keyboard(payload) } },
        },
      };
    };
    for (const strategy of ['user-in-chat', 'user', 'chat'] as const) {
      expect(conversationKey(press(77), strategy)).toBe('c:-500');
      expect(conversationKey(press(88), strategy)).toBe('c:-500');
      expect(conversationKey(reply(take), strategy)).toBe('c:-500');
    }
    // Anything else in that chat follows the strategy: other buttons, other replies, plain messages.
    expect(
      conversationKey({ ...press(77), callback: { ...press(77).callback, payload: 'AbC.menu:1.mac' } }),
    ).toBe('c:-500:u:77');
    expect(conversationKey(reply('AbC.next.mac'))).toBe('c:-500:u:77');
    expect(conversationKey(groupMessage(-500, 77, 'mid.p'))).toBe('c:-500:u:77');
  });

  it('keys a group event without a person by the chat, and returns undefined when neither is known', () => {
    expect(conversationKey({ update_type: 'message_removed', message_id: 'mid.x', chat_id: -5 })).toBe(
      'c:-5',
    );
    expect(conversationKey({ update_type: 'something_new', foo: 1 })).toBeUndefined();
    expect(conversationKey(decodeUpdate({ update_type: 'something_new', chat_id: -9, user_id: 3 }))).toBe(
      'c:-9:u:3',
    );
  });
});

describe('members joining and leaving', () => {
  it('reads both shapes of user_added/user_removed without confusing the member and who acted', () => {
    // Recorded: `user` is the inviter (also inviter_id), the member is the top-level user_id.
    const recorded = webhook('user_added');
    expect(membershipChange(decodeUpdate(recorded) as never)).toEqual({ member: 234567890, by: 123456789 });
    expect(conversationKey(recorded)).toBe(`c:${recorded.chat_id}:u:234567890`);
    // The OpenAPI text: `user` is the member, inviter_id (or admin_id) who acted.
    const openapi = { ...recorded, user: { ...recorded.user, user_id: 234567890 }, inviter_id: 123456789 };
    delete openapi.user_id;
    expect(membershipChange(decodeUpdate(openapi) as never)).toEqual({ member: 234567890, by: 123456789 });
    expect(conversationKey(openapi)).toBe(`c:${recorded.chat_id}:u:234567890`);
    // Someone who joined or left by themselves: no `by`.
    const left = { ...openapi, update_type: 'user_removed', inviter_id: undefined, admin_id: undefined };
    expect(membershipChange(decodeUpdate(left) as never)).toEqual({ member: 234567890 });
    const removed = webhook('user_removed');
    expect(membershipChange(decodeUpdate(removed) as never)).toEqual({ member: 234567890, by: 123456789 });
  });
});

describe('dedupeKey', () => {
  it('derives a stable key per update type', () => {
    const callback = webhook('message_callback');
    expect(dedupeKey(callback)).toBe(`cb:${callback.callback.callback_id}`);
    const created = webhook('message_created');
    expect(dedupeKey(created)).toBe(`message_created:${created.message.body.mid}`);
    const edited = webhook('message_edited');
    expect(dedupeKey(edited)).toBe(`message_edited:${edited.message.body.mid}:${edited.timestamp}`);
    const removed = webhook('message_removed');
    expect(dedupeKey(removed)).toBe(`message_removed:${removed.message_id}`);
    const started = webhook('bot_started');
    expect(dedupeKey(started)).toBe(
      `bot_started:${started.chat_id}:${started.user.user_id}:${started.timestamp}`,
    );
  });

  it('gives the same key to a decoded update and to its raw JSON', () => {
    for (const type of [
      'message_callback',
      'message_created',
      'message_edited',
      'bot_started',
      'user_added',
    ]) {
      const raw = webhook(type);
      expect(dedupeKey(decodeUpdate(raw))).toBe(dedupeKey(raw));
    }
  });

  it('tells two edits of one message apart', () => {
    const edited = webhook('message_edited');
    expect(dedupeKey({ ...edited, timestamp: edited.timestamp + 1 })).not.toBe(dedupeKey(edited));
  });

  it('hashes the canonical JSON of anything else, ignoring key order and nulls', () => {
    const a = { update_type: 'future_thing', b: { y: 1, x: [1, null] }, a: 'Привет', c: null };
    const b = { a: 'Привет', b: { x: [1, null], y: 1 }, update_type: 'future_thing' };
    expect(dedupeKey(a)).toMatch(/^h:/);
    expect(dedupeKey(a)).toBe(dedupeKey(b));
    expect(dedupeKey(decodeUpdate(a))).toBe(dedupeKey(a));
    expect(dedupeKey({ ...b, a: 'Пока' })).not.toBe(dedupeKey(b));
    expect(canonicalUpdateJson(a)).toBe(
      '{"a":"Привет","b":{"x":[1,null],"y":1},"update_type":"future_thing"}',
    );
  });
});
