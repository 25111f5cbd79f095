// Uploads of all four kinds against the sandbox, end to end: slot, streamed multipart to the upload
// host (Authorization for images only), then a message carrying the attachment, sent through the
// scheduler, which rides out attachment.not.ready.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { UsageError } from '../../src/client/errors.ts';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { uploadMedia } from '../../src/client/upload.ts';
import { startFaultProxy } from '../fault-proxy.ts';
import { type SandboxScheduler, sandboxScheduler } from '../support/sandbox.ts';
import { dialogs } from './request-log-checks.ts';

let h: SandboxScheduler | undefined;
let dir: string;
/** Headers of every request that reached an upload host path. */
let hostRequests: { path: string; headers: Record<string, string> }[];

function recordingDispatcher(): Dispatcher {
  return new Agent().compose((dispatch) => (options, handler) => {
    if (options.path.startsWith('/_upload/')) {
      const raw = options.headers ?? {};
      const headers: Record<string, string> = {};
      if (Array.isArray(raw))
        for (let i = 0; i < raw.length; i += 2) headers[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
      else for (const [k, v] of Object.entries(raw)) headers[k.toLowerCase()] = String(v);
      hostRequests.push({ path: options.path, headers });
    }
    return dispatch(options, handler);
  });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'botflow-upload-'));
  hostRequests = [];
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('uploadMedia', () => {
  it('uploads image, video, audio and file from a path, a Buffer and a stream, and sends them in messages', async () => {
    h = await sandboxScheduler({
      api: { dispatcher: recordingDispatcher() },
      sandbox: { attachmentProcessingMs: { image: 200, video: 1500, audio: 800, file: 200 } },
    });
    const [person] = await dialogs(h.sandbox, 1);
    const videoPath = join(dir, 'clip.mp4');
    await writeFile(videoPath, Buffer.alloc(300_000, 7));
    const filePath = join(dir, 'report.pdf');
    await writeFile(filePath, Buffer.from('%PDF-1.4 report'));
    const progress: number[] = [];

    const image = await uploadMedia(h.api, 'image', Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]), {
      filename: 'dot.png',
      contentType: 'image/png',
      scheduler: h.scheduler,
    });
    const video = await uploadMedia(h.api, 'video', videoPath, {
      scheduler: h.scheduler,
      onProgress: (p) => progress.push(p.sent),
    });
    const audio = await uploadMedia(
      h.api,
      'audio',
      Readable.from([Buffer.from('ID3'), Buffer.from('audio-bytes')]),
      {
        filename: 'note.mp3',
        scheduler: h.scheduler,
      },
    );
    const file = await uploadMedia(h.api, 'file', filePath, { scheduler: h.scheduler });

    expect(image.type).toBe('image');
    expect(video).toEqual({ type: 'video', payload: { token: expect.any(String) } });
    expect(progress.at(-1)).toBe(300_000);
    // Only the image upload carried the token, and no upload carried other API headers.
    expect(hostRequests).toHaveLength(4);
    expect(hostRequests.map((r) => r.headers.authorization)).toEqual([
      h.sandbox.token,
      undefined,
      undefined,
      undefined,
    ]);
    for (const r of hostRequests) {
      expect(['authorization', 'content-length', 'content-type']).toEqual(
        expect.arrayContaining(Object.keys(r.headers)),
      );
    }

    // Sent right away: the sandbox is still processing the video and answers attachment.not.ready.
    const sent = await Promise.all(
      [image, video, audio, file].map((attachment) =>
        h!.scheduler.submit({
          op: 'sendMessage',
          args: { chat_id: person!.chatId, attachments: [attachment] },
        }),
      ),
    );
    const kinds = sent.map((r) => r.message.body.attachments?.[0]?.type);
    expect(kinds).toEqual(['image', 'video', 'audio', 'file']);
    expect(h.scheduler.metrics().retries.notReady).toBeGreaterThan(0);
    const log = h.sandbox.requestLog.list().filter((r) => r.op === 'sendMessage');
    expect(log.some((r) => r.status === 400)).toBe(true);
    expect(log.filter((r) => r.status === 200)).toHaveLength(4);
  });

  it('refuses a file over the kind’s limit and a missing path, before any request', async () => {
    h = await sandboxScheduler();
    const big = Readable.from([Buffer.alloc(10)]);
    await expect(uploadMedia(h.api, 'image', big, { size: 60 * 1024 ** 2 })).rejects.toThrow(
      /an image may be at most 52428800 bytes/,
    );
    await expect(uploadMedia(h.api, 'file', join(dir, 'missing.bin'))).rejects.toBeInstanceOf(UsageError);
    expect(h.sandbox.requestLog.list()).toEqual([]);
  });

  it('uploads again with a new URL when the upload host’s answer is lost; a stream only once', async () => {
    h = await sandboxScheduler({ limits: { global: 30, perChat: 2 } });
    // Through a proxy that loses the answer of the first upload host POST (the host took the file).
    const draws = [0, 0];
    const proxy = await startFaultProxy(h.sandbox.baseUrl, () => draws.shift() ?? 0.99, {
      faulted: (method, path) => method === 'POST' && path.startsWith('/_upload/'),
      modes: ['502'],
    });
    const api = new BotApi({ token: h.sandbox.token, baseUrl: proxy.url });
    const scheduler = new Scheduler({ api });
    try {
      proxy.ambiguousShare(0.5);
      const filePath = join(dir, 'report.pdf');
      await writeFile(filePath, Buffer.from('%PDF-1.4 report'));
      const file = await uploadMedia(api, 'file', filePath, { scheduler });
      expect(file).toEqual({ type: 'file', payload: { token: expect.any(String) } });
      expect(proxy.stats.lostBy).toEqual({ 'POST /_upload/…': 1 });
      const slots = () => h!.sandbox.requestLog.list().filter((r) => r.op === 'getUploadUrl').length;
      expect(slots()).toBe(2);
      const [person] = await dialogs(h.sandbox, 1);
      await h.scheduler.submit({ op: 'sendMessage', args: { chat_id: person!.chatId, attachments: [file] } });
      expect((await h.sandbox.control.view(person!.userId)).messages).toHaveLength(1);

      draws.push(0, 0);
      await expect(uploadMedia(api, 'file', Readable.from([Buffer.from('once')]))).rejects.toThrow(/502/);
      expect(slots()).toBe(3);
    } finally {
      scheduler.close();
      await api.close();
      await proxy.close();
    }
  });
});
