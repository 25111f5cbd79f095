/** Issue 18, item 7: an image sent by URL comes back in the platform's shape, with photo_id and token. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog } from './helpers.ts';

let h: SandboxClient;
beforeEach(async () => {
  h = await sandboxClient();
});
afterEach(() => h.close());

describe('image by URL', () => {
  it('comes back with photo_id, token and url, and the token can be sent again', async () => {
    const { user } = await personInDialog(h.sandbox);
    const url = 'https://example.org/cat.png';
    const sent = await h.api.sendMessage({
      user_id: user.user_id,
      attachments: [{ type: 'image', payload: { url } }],
    });
    const image = sent.message.body.attachments?.[0] as { type: string; payload: Record<string, unknown> };
    expect(image.type).toBe('image');
    expect(image.payload).toEqual({ photo_id: expect.any(Number), token: expect.any(String), url });
    const again = await h.api.sendMessage({
      user_id: user.user_id,
      attachments: [{ type: 'image', payload: { token: image.payload.token as string } }],
    });
    const second = again.message.body.attachments?.[0] as { payload: Record<string, unknown> };
    expect(second.payload).toMatchObject({ photo_id: image.payload.photo_id, url });
  });
});
