/**
 * Issue 18, item 2: the sandbox checks requests strictly against the specification, with its own
 * schemas. What the OpenAPI description allows is accepted; what it refuses is a 400 in the platform's
 * error shape (the shape of the recorded error payloads); the client refuses the same before sending.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/client/errors.ts';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog, raw } from './helpers.ts';

const fixture = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
const OPENAPI = fixture('./fixtures/openapi-requests.json');
const RECORDED_ERROR = fixture('../client/fixtures/payloads/error.invalid-token.json');
const RECORDED_CALLBACK = fixture('../client/fixtures/payloads/update.message_callback.json').updates[0];
const RECORDED_FORWARD = fixture('../client/fixtures/payloads/update.message_created.json').updates[0];

const keyboard = (buttons: unknown[][]) => ({ type: 'inline_keyboard', payload: { buttons } });

let h: SandboxClient;
let userId: number;
beforeEach(async () => {
  h = await sandboxClient();
  userId = (await personInDialog(h.sandbox)).user.user_id;
});
afterEach(() => h.close());

const send = (body: unknown, query = `user_id=${userId}`) =>
  raw(h.sandbox, 'POST', `/messages?${query}`, body);

describe('strict request checking', () => {
  it('accepts every button and attachment shape of the OpenAPI description', async () => {
    for (const button of OPENAPI.buttons) {
      const res = await send({ text: 'b', attachments: [keyboard([[button]])] });
      expect(res.status, JSON.stringify({ button, res: res.body })).toBe(200);
    }
    for (const attachment of OPENAPI.attachments) {
      const res = await send({ attachments: [attachment] });
      expect(res.status, JSON.stringify({ attachment, res: res.body })).toBe(200);
    }
    const sub = await raw(h.sandbox, 'POST', '/subscriptions', OPENAPI.subscription);
    expect(sub.status).toBe(200);
    await raw(h.sandbox, 'DELETE', `/subscriptions?url=${encodeURIComponent(OPENAPI.subscription.url)}`);
    expect((await raw(h.sandbox, 'GET', `/updates?timeout=0&${OPENAPI.updatesQuery}`)).status).toBe(200);
  });

  it('accepts bodies made from recorded platform messages (text, a forward link, nulls for absent)', async () => {
    const first = await send({ text: RECORDED_CALLBACK.message.body.text, format: null, attachments: null });
    expect(first.status).toBe(200);
    const mid = (first.body.message as { body: { mid: string } }).body.mid;
    const forward = await send({ text: RECORDED_FORWARD.message.body.text, link: { type: 'forward', mid } });
    expect(forward.status).toBe(200);
  });

  const refused: [string, unknown, string][] = [
    [
      'an unknown button type',
      { text: 't', attachments: [keyboard([[{ type: 'magic', text: 'x' }]])] },
      'unknown type "magic"',
    ],
    [
      'a callback button without payload',
      { text: 't', attachments: [keyboard([[{ type: 'callback', text: 'x' }]])] },
      'payload',
    ],
    [
      'a link button without url',
      { text: 't', attachments: [keyboard([[{ type: 'link', text: 'x' }]])] },
      'url',
    ],
    [
      'a chat button (prose of the OpenAPI only; not in its Button schema)',
      { text: 't', attachments: [keyboard([[{ type: 'chat', text: 'x', chat_title: 'Discuss' }]])] },
      'chat',
    ],
    ['an empty keyboard', { text: 't', attachments: [keyboard([])] }, 'at least one row'],
    [
      'an empty row',
      { text: 't', attachments: [keyboard([[{ type: 'callback', text: 'x', payload: 'p' }], []])] },
      'at least one button',
    ],
    ['an unknown body field', { text: 't', colour: 'red' }, 'unknown field "colour"'],
    [
      'an unknown button field',
      {
        text: 't',
        attachments: [keyboard([[{ type: 'callback', text: 'x', payload: 'p', intent: 'positive' }]])],
      },
      'unknown field "intent"',
    ],
    [
      'an unknown attachment type',
      { attachments: [{ type: 'hologram', payload: {} }] },
      'unknown type "hologram"',
    ],
    ['a malformed boolean', { text: 't', notify: 'yes' }, 'notify'],
    ['a malformed format', { text: 't', format: 'rtf' }, 'format'],
  ];
  for (const [what, body, says] of refused) {
    it(`refuses ${what} with 400 in the platform's error shape`, async () => {
      const res = await send(body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body).sort()).toEqual(Object.keys(RECORDED_ERROR).sort());
      expect(res.body.code).toBe('proto.payload');
      expect(res.body.message).toContain(says);
    });
  }

  it('refuses query parameters sent in the body, naming the parameter', async () => {
    const sent = await send({ text: 'x' });
    const mid = (sent.body.message as { body: { mid: string } }).body.mid;
    const cases: [string, string, unknown, string][] = [
      ['POST', '/messages', { chat_id: 1, text: 'x' }, 'chat_id'],
      ['POST', '/messages', { user_id: userId, text: 'x' }, 'user_id'],
      ['PUT', `/messages`, { message_id: mid, text: 'y' }, 'message_id'],
      ['DELETE', '/messages', { message_id: mid }, 'message_id'],
      ['POST', '/uploads', { type: 'image' }, 'type'],
      ['DELETE', '/subscriptions', { url: 'https://example.org/hook' }, 'url'],
      ['POST', '/answers', { callback_id: 'abc', notification: 'n' }, 'callback_id'],
    ];
    for (const [method, path, body, name] of cases) {
      const res = await raw(h.sandbox, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body).toMatchObject({
        code: 'proto.payload',
        message: expect.stringContaining(`"${name}"`),
      });
    }
    expect((await h.api.getMessage({ message_id: mid })).body.text).toBe('x');
  });

  it('refuses a malformed boolean in the query', async () => {
    const res = await send({ text: 'x' }, `user_id=${userId}&disable_link_preview=yes`);
    expect(res).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('disable_link_preview') },
    });
    expect((await send({ text: 'x' }, `user_id=${userId}&disable_link_preview=true`)).status).toBe(200);
  });

  it('the client refuses the same before sending: unknown button types and fields, missing fields, empty keyboards', async () => {
    const before = h.sandbox.requestLog.list().length;
    const bad: unknown[][][] = [
      [[{ type: 'magic', text: 'x' }]],
      [[{ type: 'chat', text: 'x' }]],
      [[{ type: 'callback', text: 'x' }]],
      [[{ type: 'callback', text: 'x', payload: 'p', intent: 'positive' }]],
      [],
    ];
    for (const buttons of bad) {
      const err = await h.api
        .sendMessage({ user_id: userId, text: 't', attachments: [keyboard(buttons) as never] })
        .catch((e: unknown) => e);
      expect(err, JSON.stringify(buttons)).toBeInstanceOf(UsageError);
    }
    expect(h.sandbox.requestLog.list().length).toBe(before);
  });
});
