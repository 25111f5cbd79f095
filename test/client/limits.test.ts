/**
 * The documented limits are enforced before anything is sent, with the path of the field at fault;
 * the same checks are exported for the flow linter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { UsageError } from '../../src/client/errors.ts';
import {
  checkAttachments,
  checkButton,
  checkKeyboard,
  checkNewMessageBody,
  checkOperationArgs,
} from '../../src/client/limits.ts';
import type { ButtonInput } from '../../src/client/operation-types.ts';
import { type FakePlatform, startFakePlatform } from './fake-platform.ts';

const cb = (text = 'ok', payload = 'p'): ButtonInput => ({ type: 'callback', text, payload });
const keyboard = (buttons: unknown[][]) => ({ type: 'inline_keyboard', payload: { buttons } });
const fields = (v: { field: string }[]) => v.map((x) => x.field);

describe('limit checks', () => {
  it('accepts a message at the limits', () => {
    const rows = Array.from({ length: 30 }, () =>
      Array.from({ length: 7 }, () => cb('x'.repeat(128), 'p'.repeat(1024))),
    );
    expect(checkNewMessageBody({ text: 'a'.repeat(4000), attachments: [keyboard(rows)] })).toEqual([]);
  });

  it('text longer than 4000 characters (UTF-16 units: an emoji counts as two, as in the sandbox)', () => {
    expect(checkNewMessageBody({ text: '😀'.repeat(2000) })).toEqual([]);
    expect(checkNewMessageBody({ text: `${'😀'.repeat(2000)}a` })).toEqual([
      { field: 'text', message: expect.stringContaining('4001 characters') },
    ]);
    const v = checkNewMessageBody({ text: 'a'.repeat(4001) });
    expect(v).toEqual([{ field: 'text', message: expect.stringContaining('4001 characters') }]);
  });

  it('callback payload over 1024 names the exact button', () => {
    const rows = [[cb()], [cb(), cb(), cb()], [cb(), cb('big', 'x'.repeat(1025))]];
    const v = checkNewMessageBody({
      text: 'hi',
      attachments: [{ type: 'image', payload: { url: 'u' } }, keyboard(rows)],
    });
    expect(fields(v)).toEqual(['attachments[1].payload.buttons[2][1].payload']);
    expect(v[0]!.message).toContain('1024');
  });

  it('button text must be 1..128 characters', () => {
    expect(fields(checkButton(cb(''), 'b'))).toEqual(['b.text']);
    expect(fields(checkButton(cb('x'.repeat(129)), 'b'))).toEqual(['b.text']);
    expect(fields(checkButton({ type: 'message' }, 'b'))).toEqual(['b.text']);
  });

  it('clipboard payload at most 1024 characters', () => {
    const copy = (n: number) => ({ type: 'clipboard', text: 'Copy', payload: 'c'.repeat(n) });
    expect(checkButton(copy(1024), 'b')).toEqual([]);
    expect(fields(checkButton(copy(1025), 'b'))).toEqual(['b.payload']);
  });

  it('link url at most 2048 characters', () => {
    expect(
      checkButton({ type: 'link', text: 'go', url: `https://a.example/${'x'.repeat(2000)}` }, 'b'),
    ).toEqual([]);
    const long = { type: 'link', text: 'go', url: `https://a.example/${'x'.repeat(2048)}` };
    expect(fields(checkButton(long, 'b'))).toEqual(['b.url']);
  });

  it('rows: at most 30, 7 per row, 210 in all', () => {
    const row = (n: number) => Array.from({ length: n }, () => cb());
    expect(fields(checkKeyboard({ buttons: Array.from({ length: 31 }, () => row(1)) }, 'k'))).toEqual([
      'k.buttons',
    ]);
    expect(fields(checkKeyboard({ buttons: [row(7), row(8)] }, 'k'))).toEqual(['k.buttons[1]']);
    // 211 buttons in 30 rows is impossible with 7 per row; the total check still guards odd shapes.
    const v = checkKeyboard({ buttons: Array.from({ length: 31 }, () => row(7)) }, 'k');
    expect(v.map((x) => x.message)).toEqual([
      expect.stringContaining('31 rows'),
      expect.stringContaining('217 buttons'),
    ]);
  });

  it('a row holding link, open_app, geo or contact buttons takes at most 3', () => {
    for (const wide of [
      { type: 'link', text: 'l', url: 'https://a.example' },
      { type: 'open_app', text: 'app' },
      { type: 'request_geo_location', text: 'where' },
      { type: 'request_contact', text: 'who' },
    ]) {
      expect(checkKeyboard({ buttons: [[wide, cb(), cb()]] }, 'k'), wide.type).toEqual([]);
      const v = checkKeyboard({ buttons: [[cb(), wide, cb(), cb()]] }, 'k');
      expect(v).toEqual([
        { field: 'k.buttons[0]', message: expect.stringContaining(`holds a ${wide.type} button`) },
      ]);
    }
  });

  it('at most one inline_keyboard per message', () => {
    const v = checkAttachments([keyboard([[cb()]]), keyboard([[cb()]])]);
    expect(fields(v)).toEqual(['attachments[1]']);
    expect(v[0]!.message).toContain('at most one keyboard');
  });

  it('paths are prefixed for nested messages (callback answers)', () => {
    const v = checkOperationArgs('answerCallback', { callback_id: 'c', message: { text: 'x'.repeat(4001) } });
    expect(fields(v)).toEqual(['message.text']);
    expect(fields(checkOperationArgs('answerCallbackResult', { callback_id: 'c' }))).toEqual(['message']);
  });

  it('exactly one target for sendMessage and getMessages', () => {
    expect(checkOperationArgs('sendMessage', { chat_id: 1, text: 'x' })).toEqual([]);
    expect(checkOperationArgs('sendMessage', { user_id: 1, text: 'x' })).toEqual([]);
    expect(fields(checkOperationArgs('sendMessage', { text: 'x' }))).toEqual(['chat_id']);
    expect(fields(checkOperationArgs('sendMessage', { chat_id: 1, user_id: 2, text: 'x' }))).toEqual([
      'chat_id/user_id',
    ]);
    expect(fields(checkOperationArgs('getMessages', { count: 5 }))).toEqual(['chat_id']);
    expect(fields(checkOperationArgs('getMessages', { chat_id: 1, message_ids: ['m'] }))).toEqual([
      'chat_id/message_ids',
    ]);
  });

  it('a new message must not be empty', () => {
    expect(fields(checkOperationArgs('sendMessage', { chat_id: 1 }))).toEqual(['text']);
    expect(fields(checkOperationArgs('sendMessage', { chat_id: 1, text: '', attachments: [] }))).toEqual([
      'text',
    ]);
    expect(checkOperationArgs('sendMessage', { chat_id: 1, link: { type: 'forward', mid: 'm' } })).toEqual(
      [],
    );
    expect(checkOperationArgs('sendMessage', { chat_id: 1, attachments: [{ type: 'sticker' }] })).toEqual([]);
  });

  it('query ranges, bot commands and webhook secrets', () => {
    expect(fields(checkOperationArgs('getUpdates', { limit: 0, timeout: 91 }))).toEqual(['limit', 'timeout']);
    expect(checkOperationArgs('getUpdates', { limit: 1000, timeout: 0 })).toEqual([]);
    expect(fields(checkOperationArgs('getMessages', { chat_id: 1, count: 101 }))).toEqual(['count']);
    expect(fields(checkOperationArgs('getMembers', { chat_id: 1, count: 2.5 }))).toEqual(['count']);
    const commands = Array.from({ length: 33 }, (_, i) => ({ name: `c${i}` }));
    expect(fields(checkOperationArgs('editMyCommands', { commands }))).toEqual(['commands']);
    expect(checkOperationArgs('editMyCommands', { commands: [] })).toEqual([]);
    expect(
      fields(checkOperationArgs('editMyCommands', { commands: [{ name: '', description: '' }] })),
    ).toEqual(['commands[0].name', 'commands[0].description']);
    expect(fields(checkOperationArgs('subscribe', { url: 'https://x', secret: 'a b' }))).toEqual(['secret']);
    expect(checkOperationArgs('subscribe', { url: 'https://x', secret: 'good_Secret-1' })).toEqual([]);
  });

  it('comments: text at most 4000', () => {
    expect(fields(checkOperationArgs('sendComment', { message_id: 'm', text: 'x'.repeat(4001) }))).toEqual([
      'text',
    ]);
  });
});

describe('the client refuses before any request', () => {
  let platform: FakePlatform;
  let api: BotApi;
  beforeAll(async () => {
    platform = await startFakePlatform({ body: { success: true } });
    api = new BotApi({ token: 't', baseUrl: platform.url });
  });
  afterAll(async () => {
    await api.close();
    await platform.close();
  });

  async function refusal(promise: Promise<unknown>): Promise<UsageError> {
    const before = platform.requests.length;
    const err = await promise.then(
      () => {
        throw new Error('expected a refusal');
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect(platform.requests.length).toBe(before);
    return err as UsageError;
  }

  it('sendMessage with no target or two targets', async () => {
    const none = await refusal(api.sendMessage({ text: 'hi' } as never));
    expect(none.field).toBe('chat_id');
    expect(none.message).toContain('exactly one target');
    await refusal(api.sendMessage({ chat_id: 1, user_id: 2, text: 'hi' } as never));
  });

  it('a keyboard over the limits, naming the field', async () => {
    const err = await refusal(
      api.sendMessage({
        chat_id: 1,
        attachments: [keyboard([[cb(), cb(), cb('x', 'y'.repeat(1500))]]) as never],
      }),
    );
    expect(err.field).toBe('attachments[0].payload.buttons[0][2].payload');
    expect(err.message).toBe(
      'sendMessage: attachments[0].payload.buttons[0][2].payload: is 1500 characters long; the limit is 1024: store the data server-side and put a short key in the payload',
    );
  });

  it('through call() too (the path the outbox uses)', async () => {
    await refusal(api.call('editMessage', { message_id: 'm', text: 'x'.repeat(5000) }));
  });

  it('an argument the operation does not take', async () => {
    const err = await refusal(api.call('pinMessage', { chat_id: 1, message_id: 'm', notfy: true } as never));
    expect(err.field).toBe('notfy');
    expect(err.message).toContain('known: chat_id, message_id, notify');
  });

  it('a missing path parameter', async () => {
    const err = await refusal(api.getChat({} as never));
    expect(err.field).toBe('chat_id');
  });
});

describe('editMessage attachments: omitted keeps, [] removes', () => {
  it('keeps the difference on the wire', async () => {
    const platform = await startFakePlatform({ body: { success: true } });
    const api = new BotApi({ token: 't', baseUrl: platform.url });
    try {
      await api.editMessage({ message_id: 'm1', text: 'keep' });
      await api.editMessage({ message_id: 'm1', text: 'drop', attachments: [] });
      const [keep, drop] = platform.requests;
      expect(keep!.body).toEqual({ text: 'keep' });
      expect(keep!.rawBody).not.toContain('attachments');
      expect(drop!.body).toEqual({ text: 'drop', attachments: [] });
    } finally {
      await api.close();
      await platform.close();
    }
  });
});
