import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SandboxClient, sandboxClient } from '../support/sandbox.ts';
import { personInDialog } from './helpers.ts';

let h: SandboxClient;
let clock = 1_775_000_000_000;
beforeEach(async () => {
  clock = 1_775_000_000_000;
  h = await sandboxClient({
    now: () => clock,
    attachmentProcessingMs: { image: 300, video: 2000, audio: 1000, file: 300 },
  });
});
afterEach(() => h.close());

/** Sends one file to an upload URL as multipart field `data` (or `field`). */
async function upload(
  url: string,
  content: string,
  options: { auth?: string; field?: string; name?: string } = {},
) {
  const form = new FormData();
  form.append(
    options.field ?? 'data',
    new Blob([content], { type: 'application/octet-stream' }),
    options.name ?? 'file.bin',
  );
  const res = await fetch(url, {
    method: 'POST',
    body: form,
    headers: options.auth ? { authorization: options.auth } : {},
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

describe('uploads', () => {
  it('image: needs the Authorization header, answers photos.*.token, is not ready at once', async () => {
    const { user } = await personInDialog(h.sandbox);
    const slot = await h.api.getUploadUrl({ type: 'image' });
    expect(slot.token).toBeUndefined();
    expect(slot.url.startsWith(h.sandbox.baseUrl)).toBe(true);
    expect((await upload(slot.url, 'png-bytes')).status).toBe(401);
    const up = await upload(slot.url, 'png-bytes', { auth: h.sandbox.token });
    expect(up.status).toBe(200);
    const photos = JSON.parse(up.text).photos as Record<string, { token: string }>;
    const token = Object.values(photos)[0]!.token;
    const body = {
      user_id: user.user_id,
      text: 'pic',
      attachments: [{ type: 'image' as const, payload: { token } }],
    };
    await expect(h.api.sendMessage(body)).rejects.toMatchObject({
      status: 400,
      code: 'attachment.not.ready',
      isAttachmentNotReady: true,
    });
    clock += 300;
    const sent = await h.api.sendMessage(body);
    const image = sent.message.body.attachments?.[0] as {
      type: string;
      payload: { url: string; token: string };
    };
    expect(image).toMatchObject({ type: 'image', payload: { token } });
    expect(sent.message.timestamp).toBe(clock);
    expect(await (await fetch(image.payload.url)).text()).toBe('png-bytes');
    // The `photos` form of the request works too.
    await h.api.sendMessage({ user_id: user.user_id, attachments: [{ type: 'image', payload: { photos } }] });
  });

  it('video: the token comes from POST /uploads, the host answers <retval>1</retval>, GET /videos works once uploaded', async () => {
    const { user } = await personInDialog(h.sandbox);
    const slot = await h.api.getUploadUrl({ type: 'video' });
    expect(slot.token).toEqual(expect.any(String));
    const token = slot.token!;
    await expect(h.api.getVideoAttachmentDetails({ video_token: token })).rejects.toMatchObject({
      status: 404,
    });
    const up = await upload(slot.url, 'mp4-bytes');
    expect(up).toMatchObject({ status: 200, type: expect.stringContaining('xml') });
    expect(up.text).toContain('<retval>1</retval>');
    const details = await h.api.getVideoAttachmentDetails({ video_token: token });
    expect(details).toMatchObject({ token, width: 640, height: 360 });
    const send = () =>
      h.api.sendMessage({ user_id: user.user_id, attachments: [{ type: 'video', payload: { token } }] });
    await expect(send()).rejects.toMatchObject({ code: 'attachment.not.ready' });
    clock += 1999;
    await expect(send()).rejects.toMatchObject({ code: 'attachment.not.ready' });
    clock += 1;
    const sent = await send();
    expect(sent.message.body.attachments?.[0]).toMatchObject({ type: 'video', payload: { token } });
  });

  it('audio answers an empty body, file answers {token}; both usable after processing', async () => {
    const { user } = await personInDialog(h.sandbox);
    const audio = await h.api.getUploadUrl({ type: 'audio' });
    expect(await upload(audio.url, 'ogg')).toMatchObject({ status: 200, text: '' });
    const file = await h.api.getUploadUrl({ type: 'file' });
    const fileUp = await upload(file.url, 'pdf-bytes', { name: 'report.pdf' });
    const fileToken = (JSON.parse(fileUp.text) as { token: string }).token;
    clock += 1000;
    const sent = await h.api.sendMessage({
      user_id: user.user_id,
      attachments: [
        { type: 'audio', payload: { token: audio.token! } },
        { type: 'file', payload: { token: fileToken } },
      ],
    });
    expect(sent.message.body.attachments).toEqual([
      expect.objectContaining({ type: 'audio' }),
      expect.objectContaining({ type: 'file', filename: 'report.pdf', size: 9 }),
    ]);
    const view = await h.sandbox.control.view(user.user_id);
    expect(view.messages[0]!.attachments).toHaveLength(2);
  });

  it('refuses a second file to the same URL, a missing data field, unknown kinds and tokens', async () => {
    const { user } = await personInDialog(h.sandbox);
    const slot = await h.api.getUploadUrl({ type: 'file' });
    expect((await upload(slot.url, 'x', { field: 'file' })).status).toBe(400);
    expect((await upload(slot.url, 'x')).status).toBe(200);
    const again = await upload(slot.url, 'y');
    expect(again.status).toBe(400);
    expect(JSON.parse(again.text)).toMatchObject({ code: 'upload.used' });
    await expect(h.api.call('getUploadUrl', { type: 'gif' as never })).rejects.toMatchObject({ status: 400 });
    await expect(
      h.api.sendMessage({
        user_id: user.user_id,
        attachments: [{ type: 'file', payload: { token: 'nope' } }],
      }),
    ).rejects.toMatchObject({ status: 400, code: 'proto.payload' });
    const video = await h.api.getUploadUrl({ type: 'video' });
    await upload(video.url, 'v');
    clock += 5000;
    await expect(
      h.api.sendMessage({
        user_id: user.user_id,
        attachments: [{ type: 'audio', payload: { token: video.token! } }],
      }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('answers attachment.not.ready for a message in POST /answers too, leaving the callback usable', async () => {
    const { user } = await personInDialog(h.sandbox);
    const menu = await h.api.sendMessage({
      user_id: user.user_id,
      text: 'menu',
      attachments: [
        {
          type: 'inline_keyboard',
          payload: { buttons: [[{ type: 'callback', text: 'Pic', payload: 'pic' }]] },
        },
      ],
    });
    const { callback_id } = await h.sandbox.control.pressButton(user.user_id, menu.message.body.mid, 'Pic');
    const slot = await h.api.getUploadUrl({ type: 'file' });
    const token = (JSON.parse((await upload(slot.url, 'z')).text) as { token: string }).token;
    const answer = {
      callback_id: callback_id!,
      message: { text: 'here', attachments: [{ type: 'file' as const, payload: { token } }] },
    };
    await expect(h.api.answerCallback(answer)).rejects.toMatchObject({ code: 'attachment.not.ready' });
    clock += 300;
    await expect(h.api.answerCallback(answer)).resolves.toMatchObject({ success: true });
    const view = await h.sandbox.control.view(user.user_id);
    expect(view.messages[0]).toMatchObject({ text: 'here', edited: true });
    expect(view.messages[0]!.keyboard).toBeUndefined();
  });
});
