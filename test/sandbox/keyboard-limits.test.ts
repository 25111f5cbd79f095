/**
 * Issue 29 (mini-apps): the sandbox refuses every keyboard the platform refuses (API-NOTES "Keyboard
 * limits": at most 210 buttons, 30 rows, 7 per row, 3 per row when the row holds a link, open_app, geo or
 * contact button; button text 1..128; callback and clipboard payloads ≤ 1024; link url ≤ 2048), with the
 * platform's error (400 proto.payload) on a send, an edit and the message of a callback answer alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog, raw } from './helpers.ts';

const keyboard = (buttons: unknown[][]) => ({ type: 'inline_keyboard', payload: { buttons } });
const cb = (text = 'x', payload = 'p') => ({ type: 'callback', text, payload });
const row = (n: number, make: () => unknown = () => cb()) => Array.from({ length: n }, () => make());
const WIDE: Record<string, unknown> = {
  link: { type: 'link', text: 'Site', url: 'https://example.org' },
  open_app: { type: 'open_app', text: 'App', web_app: 'shop_bot', payload: 'cart' },
  request_contact: { type: 'request_contact', text: 'Phone' },
  request_geo_location: { type: 'request_geo_location', text: 'Where' },
};

let h: SandboxClient;
let userId: number;
beforeAll(async () => {
  h = await sandboxClient();
  userId = (await personInDialog(h.sandbox)).user.user_id;
});
afterAll(() => h.close());

const send = (buttons: unknown[][]) =>
  raw(h.sandbox, 'POST', `/messages?user_id=${userId}`, { text: 't', attachments: [keyboard(buttons)] });

const expectRefused = (res: Awaited<ReturnType<typeof send>>, says: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toEqual({ code: 'proto.payload', message: expect.stringContaining(says) });
};

describe('keyboard limits in the sandbox', () => {
  it('accepts a keyboard at every limit', async () => {
    const full = Array.from({ length: 30 }, () => row(7));
    expect((await send(full)).status).toBe(200);
    expect((await send([Object.values(WIDE).slice(0, 3), Object.values(WIDE).slice(1)])).status).toBe(200);
    const long = [
      [cb('x'.repeat(128), 'p'.repeat(1024))],
      [{ type: 'clipboard', text: 'Copy', payload: 'c'.repeat(1024) }],
      [{ type: 'link', text: 'Go', url: `https://example.org/${'u'.repeat(2048 - 20)}` }],
      [{ type: 'message', text: 'Yes please' }],
    ];
    expect((await send(long)).status).toBe(200);
  });

  it('refuses more than 30 rows, 7 buttons in a row, 210 in all', async () => {
    expectRefused(await send(Array.from({ length: 31 }, () => row(1))), '30 rows');
    expectRefused(await send([row(7), row(8)]), 'buttons[1]');
  });

  for (const [type, wide] of Object.entries(WIDE)) {
    it(`refuses a fourth button in a row holding a ${type} button`, async () => {
      expectRefused(await send([[cb(), cb(), wide, cb()]]), 'at most 3 buttons');
      expectRefused(await send([row(4, () => wide)]), 'at most 3 buttons');
      expect((await send([[cb(), wide, cb()]])).status).toBe(200);
    });
  }

  it('refuses button texts outside 1..128 characters and payloads or urls over their limits', async () => {
    expectRefused(await send([[cb('')]]), 'text');
    expectRefused(await send([[cb('x'.repeat(129))]]), 'text');
    expectRefused(await send([[{ type: 'message', text: 'x'.repeat(129) }]]), 'text');
    expectRefused(await send([[{ type: 'open_app', text: '', web_app: 'shop_bot' }]]), 'text');
    expectRefused(await send([[cb('x', 'p'.repeat(1025))]]), 'payload');
    expectRefused(await send([[{ type: 'clipboard', text: 'Copy', payload: 'c'.repeat(1025) }]]), 'payload');
    const url = `https://example.org/${'u'.repeat(2048)}`;
    expectRefused(await send([[{ type: 'link', text: 'Go', url }]]), 'url');
  });

  it('refuses the same keyboard in an edit and in the message of a callback answer', async () => {
    const sent = await send([[cb()]]);
    const mid = (sent.body.message as { body: { mid: string } }).body.mid;
    const wideRow = [row(4, () => WIDE.open_app)];
    const edit = await raw(h.sandbox, 'PUT', `/messages?message_id=${mid}`, {
      text: 't',
      attachments: [keyboard(wideRow)],
    });
    expectRefused(edit, 'at most 3 buttons');
    const press = await h.sandbox.control.pressButton(userId, mid, 'p');
    const answer = await raw(h.sandbox, 'POST', `/answers?callback_id=${press.callback_id}`, {
      message: { text: 't', attachments: [keyboard(wideRow)] },
    });
    expectRefused(answer, 'at most 3 buttons');
  });
});
