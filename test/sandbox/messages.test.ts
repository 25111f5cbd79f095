import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/errors.ts';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog } from './helpers.ts';

let h: SandboxClient;
beforeEach(async () => {
  h = await sandboxClient();
});
afterEach(() => h.close());

const keyboard = (rows: { text: string; payload: string }[][]) => ({
  type: 'inline_keyboard' as const,
  payload: { buttons: rows.map((r) => r.map((b) => ({ type: 'callback' as const, ...b }))) },
});

describe('messages', () => {
  it('sends to a user, shows it to the person, edits and deletes it', async () => {
    const { user, chatId } = await personInDialog(h.sandbox);
    const sent = await h.api.sendMessage({
      user_id: user.user_id,
      text: 'Hello',
      attachments: [keyboard([[{ text: 'Yes', payload: 'y' }]])],
    });
    const m = sent.message;
    expect(m.body.mid).toMatch(/^mid\.[0-9a-f]{32}$/);
    expect(m.body.seq).toBeGreaterThan(2 ** 53);
    expect(m.recipient).toMatchObject({ chat_id: chatId, chat_type: 'dialog', user_id: user.user_id });
    expect(m.sender?.user_id).toBe(h.sandbox.bot.user_id);

    let view = await h.sandbox.control.view(user.user_id);
    expect(view.messages.map((x) => [x.from, x.text])).toEqual([['bot', 'Hello']]);
    expect(view.messages[0]!.keyboard).toEqual([[{ type: 'callback', text: 'Yes', payload: 'y' }]]);

    // Editing without attachments keeps the keyboard; [] removes it.
    await h.api.editMessage({ message_id: m.body.mid, text: 'Hello again' });
    view = await h.sandbox.control.view(user.user_id);
    expect(view.messages[0]).toMatchObject({ text: 'Hello again', edited: true });
    expect(view.messages[0]!.keyboard).toBeDefined();
    await h.api.editMessage({ message_id: m.body.mid, text: 'Plain', attachments: [] });
    view = await h.sandbox.control.view(user.user_id);
    expect(view.messages[0]!.keyboard).toBeUndefined();

    const got = await h.api.getMessage({ message_id: m.body.mid });
    expect(got.body.text).toBe('Plain');
    const list = await h.api.getMessages({ chat_id: chatId });
    expect(list.messages.map((x) => x.body.mid)).toEqual([m.body.mid]);
    const byId = await h.api.getMessages({ message_ids: [m.body.mid] });
    expect(byId.messages).toHaveLength(1);

    expect(await h.api.deleteMessage({ message_id: m.body.mid })).toMatchObject({ success: true });
    view = await h.sandbox.control.view(user.user_id);
    expect(view.messages).toEqual([]);
    await expect(h.api.getMessage({ message_id: m.body.mid })).rejects.toMatchObject({
      status: 404,
      code: 'not.found',
    });
  });

  it('lists messages newest first with count, from and to', async () => {
    const { user, chatId } = await personInDialog(h.sandbox);
    for (const t of ['one', 'two', 'three']) await h.sandbox.control.sendText(user.user_id, 'dialog', t);
    const all = await h.api.getMessages({ chat_id: chatId, count: 2 });
    expect(all.messages.map((m) => m.body.text)).toEqual(['three', 'two']);
    const oldest = (await h.api.getMessages({ chat_id: chatId })).messages.at(-1)!;
    const upTo = await h.api.getMessages({ chat_id: chatId, from: oldest.timestamp, to: oldest.timestamp });
    expect(upTo.messages.map((m) => m.body.text)).toContain('one');
  });

  it('replies link to the original message', async () => {
    const { user } = await personInDialog(h.sandbox);
    const said = await h.sandbox.control.sendText(user.user_id, 'dialog', 'question');
    const reply = await h.api.sendMessage({
      user_id: user.user_id,
      text: 'answer',
      link: { type: 'reply', mid: said.body.mid },
    });
    expect(reply.message.link).toMatchObject({
      type: 'reply',
      message: { mid: said.body.mid, text: 'question' },
    });
  });

  it('refuses sends the platform refuses', async () => {
    const { user } = await personInDialog(h.sandbox);
    // The client itself refuses an empty message, so send through call() with raw HTTP semantics.
    const raw = async (path: string, init: { method: string; body?: string; token?: string }) => {
      const res = await fetch(`${h.sandbox.baseUrl}${path}`, {
        method: init.method,
        headers: { authorization: init.token ?? h.sandbox.token, 'content-type': 'application/json' },
        ...(init.body !== undefined ? { body: init.body } : {}),
      });
      return { status: res.status, body: (await res.json()) as { code: string; message: string } };
    };
    expect(
      await raw(`/messages?user_id=${user.user_id}`, { method: 'POST', body: '{"text": ' }),
    ).toMatchObject({
      status: 400,
      body: { code: 'proto.payload' },
    });
    expect(await raw(`/messages?user_id=${user.user_id}`, { method: 'POST', body: '{}' })).toMatchObject({
      status: 400,
    });
    expect(
      await raw(`/messages?chat_id=1&user_id=${user.user_id}`, { method: 'POST', body: '{"text":"x"}' }),
    ).toMatchObject({
      status: 400,
    });
    const twoKeyboards = JSON.stringify({
      text: 'x',
      attachments: [keyboard([[{ text: 'a', payload: 'a' }]]), keyboard([[{ text: 'b', payload: 'b' }]])],
    });
    expect(
      (await raw(`/messages?user_id=${user.user_id}`, { method: 'POST', body: twoKeyboards })).body.message,
    ).toMatch(/one inline keyboard/);
    expect(await raw('/messages?chat_id=999999', { method: 'POST', body: '{"text":"x"}' })).toMatchObject({
      status: 404,
      body: { code: 'not.found' },
    });
    // The target belongs in the query: in the body it is refused, as the spec places it.
    expect(
      await raw('/messages', {
        method: 'POST',
        body: JSON.stringify({ user_id: user.user_id, text: 'in body' }),
      }),
    ).toMatchObject({
      status: 400,
      body: { code: 'proto.payload' },
    });
    // After the person stops the bot, sends are refused.
    await h.sandbox.control.stopBot(user.user_id);
    const err = await h.api
      .sendMessage({ user_id: user.user_id, text: 'still there?' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 403, code: 'chat.denied' });
  });

  it('answers 401 verify.token to a missing or wrong token', async () => {
    const variants: Record<string, string>[] = [
      {},
      { authorization: 'wrong' },
      { authorization: `Bearer ${h.sandbox.token}` },
    ];
    for (const headers of variants) {
      const res = await fetch(`${h.sandbox.baseUrl}/me`, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ code: 'verify.token', message: 'Invalid access_token' });
    }
  });
});
