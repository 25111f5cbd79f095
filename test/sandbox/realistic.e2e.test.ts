/**
 * The sandbox at the platform's pace (`timing: 'realistic'`, `botflow sandbox --realistic`): a video takes
 * seconds to process, so a message carrying it is refused with attachment.not.ready until it is ready and
 * the scheduler's retry budget carries it through; a webhook that fails is tried again 30 s later, not 1 s.
 * Slow by design: this is the end-to-end project.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { uploadMedia } from '../../src/client/upload.ts';
import { REALISTIC_TIMING } from '../../src/sandbox/index.ts';
import { eventually } from '../support/eventually.ts';
import {
  type SandboxClient,
  type SandboxScheduler,
  sandboxClient,
  sandboxScheduler,
} from '../support/sandbox.ts';
import { personInDialog } from './helpers.ts';

let h: SandboxClient | SandboxScheduler | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('the realistic timing profile', () => {
  it('keeps a video processing for seconds; the scheduler sends the message once it is ready', async () => {
    const s = await sandboxScheduler({ sandbox: { timing: 'realistic', limits: false } });
    h = s;
    const { user } = await personInDialog(s.sandbox);
    const attachment = await uploadMedia(s.api, 'video', Buffer.from('mp4 bytes of a short clip'));
    const started = Date.now();
    const sent = (await s.scheduler.submit({
      op: 'sendMessage',
      args: { user_id: user.user_id, text: 'Your clip', attachments: [attachment] },
      mediaKind: 'video',
    } as never)) as { message: { body: { text: string } } };
    const took = Date.now() - started;
    expect(sent.message.body.text).toBe('Your clip');
    // Ready no sooner than the realistic processing time (the upload itself took some of it).
    expect(took).toBeGreaterThan(REALISTIC_TIMING.attachmentProcessingMs.video - 3_000);
    // The sends before that were refused (400 attachment.not.ready) and tried again by the scheduler.
    const sends = s.sandbox.requestLog.list().filter((r) => r.op === 'sendMessage');
    expect(sends.filter((r) => r.status === 400).length).toBeGreaterThan(0);
    expect(sends.at(-1)!.status).toBe(200);
  }, 60_000);

  it('tries a failed webhook delivery again 30 s later', async () => {
    h = await sandboxClient({ timing: 'realistic' });
    const at: number[] = [];
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        at.push(Date.now());
        res.statusCode = at.length === 1 ? 503 : 200;
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await h.api.subscribe({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` });
      await personInDialog(h.sandbox);
      await eventually('the retry', () => (at.length >= 2 ? true : undefined), 45_000);
      expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(REALISTIC_TIMING.webhook.firstRetryDelayMs - 100);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 60_000);
});
