/**
 * Issue 18: `user_id=X` and the dialog with X are ONE chat on the platform. The scheduler counts sends
 * by either against one per-chat budget, so mixing them gets no 429 from the sandbox (2/s per chat).
 * Real rate-limit windows (nine sends at 2/s): the e2e project.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { type SandboxScheduler, sandboxScheduler } from '../support/sandbox.ts';
import { dialogs, textsIn, windowPeaks } from './request-log-checks.ts';

let h: SandboxScheduler | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a person and their dialog are one chat for the per-chat budget', () => {
  it('mixes sends by user_id and by chat_id without exceeding 2/s for that dialog', async () => {
    h = await sandboxScheduler();
    const [person] = await dialogs(h.sandbox, 1);
    const { userId, chatId } = person!;
    // The first send by user_id teaches the scheduler which dialog it is.
    // (Until then it is counted as its own lane, so the window of that first send is let pass.)
    await h.scheduler.submit({ op: 'sendMessage', args: { user_id: userId, text: 'm0' } });
    const first = h.sandbox.requestLog.list().find((r) => r.op === 'sendMessage')!;
    await eventually('the window of the first send to pass', () => Date.now() > first.time + 1000);
    const since = Date.now();
    const jobs: Promise<unknown>[] = [];
    for (let i = 1; i <= 8; i++) {
      const args = i % 2 ? { user_id: userId, text: `m${i}` } : { chat_id: chatId, text: `m${i}` };
      jobs.push(h.scheduler.submit({ op: 'sendMessage', args }));
    }
    await Promise.all(jobs);
    const peaks = windowPeaks(h.sandbox.requestLog.list(since));
    expect(peaks.http429).toBe(0);
    expect(peaks.perChat).toBeLessThanOrEqual(2);
    expect(await textsIn(h.api, chatId)).toEqual(Array.from({ length: 9 }, (_, i) => `m${i}`));
  });
});
