/**
 * Issue 29 (mini-apps): a person pressing an open_app button in the sandbox gets the initData the mini-app
 * would get, signed with the sandbox's token as the platform signs it; botflow's validateInitData (written
 * apart from the sandbox's signer) accepts it, and refuses it for another token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateInitData } from '../../src/intake/index.ts';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog } from './helpers.ts';

let h: SandboxClient;
let ann: Awaited<ReturnType<typeof personInDialog>>;
beforeAll(async () => {
  h = await sandboxClient();
  ann = await personInDialog(h.sandbox, 'Ann');
});
afterAll(() => h.close());

describe('open_app in the sandbox', () => {
  it('gives the person a signed initData that validateInitData accepts', async () => {
    const sent = await h.api.sendMessage({
      user_id: ann.user.user_id,
      text: 'Your order',
      attachments: [
        {
          type: 'inline_keyboard',
          payload: {
            buttons: [
              [{ type: 'open_app', text: 'Open the shop', web_app: 'shop_bot', payload: 'order-42' }],
              [{ type: 'clipboard', text: 'Copy', payload: 'PROMO' }],
            ],
          },
        },
      ] as never,
    });
    const mid = (sent as { message: { body: { mid: string } } }).message.body.mid;
    const before = (await h.api.getUpdates({ timeout: 0 })).updates.length;
    const press = await h.sandbox.control.pressButton(ann.user.user_id, mid, {
      text: 'Open the shop',
    });
    expect(press).toMatchObject({ kind: 'open_app', web_app: 'shop_bot' });
    const data = validateInitData(press.init_data!, h.sandbox.token, { maxAgeSeconds: 60 });
    expect(data).toMatchObject({
      start_param: 'order-42',
      user: { id: ann.user.user_id, first_name: 'Ann' },
      chat: { id: ann.chatId, type: 'dialog' },
    });
    expect(() => validateInitData(press.init_data!, `${h.sandbox.token}x`)).toThrow(
      expect.objectContaining({ code: 'BOTFLOW_INIT_DATA_SIGNATURE' }),
    );
    // Neither opening a mini-app nor copying tells the bot anything.
    expect(await h.sandbox.control.pressButton(ann.user.user_id, mid, { text: 'Copy' })).toEqual({
      kind: 'clipboard',
    });
    expect((await h.api.getUpdates({ timeout: 0 })).updates.length).toBe(before);
  });
});
