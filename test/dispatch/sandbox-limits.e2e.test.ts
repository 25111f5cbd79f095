// The scheduler against the sandbox with the platform's real limits: the sandbox's own request log
// is the judge of the windows, and its stored messages are the judge of order.
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { type SandboxScheduler, sandboxScheduler } from '../support/sandbox.ts';
import { dialogs, textsIn, windowPeaks } from './request-log-checks.ts';

let h: SandboxScheduler | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('Scheduler against the sandbox (30/s overall, 2/s per chat)', () => {
  it('never exceeds either limit, gets no 429 and keeps every chat in order', async () => {
    h = await sandboxScheduler();
    const people = await dialogs(h.sandbox, 25);
    const hot = people[0]!.chatId;
    const since = Date.now();
    const jobs: Promise<unknown>[] = [];
    for (let round = 0; round < 3; round++) {
      for (const { chatId } of people.slice(1)) {
        jobs.push(
          h.scheduler.submit({
            op: 'sendMessage',
            args: { chat_id: chatId, text: `r${round}` },
            priority: 'bulk',
          }),
        );
      }
    }
    for (let i = 0; i < 12; i++)
      jobs.push(h.scheduler.submit({ op: 'sendMessage', args: { chat_id: hot, text: `h${i}` } }));
    for (const { chatId } of people.slice(0, 10))
      jobs.push(h.scheduler.submit({ op: 'getChat', args: { chat_id: chatId } }));
    await Promise.all(jobs);

    const peaks = windowPeaks(h.sandbox.requestLog.list(since));
    expect(peaks.http429).toBe(0);
    expect(peaks.global).toBeLessThanOrEqual(30);
    expect(peaks.global).toBeGreaterThanOrEqual(25); // it does run near the limit
    expect(peaks.perChat).toBe(2);
    expect(await textsIn(h.api, hot)).toEqual(Array.from({ length: 12 }, (_, i) => `h${i}`));
    for (const { chatId } of people.slice(1, 6))
      expect(await textsIn(h.api, chatId)).toEqual(['r0', 'r1', 'r2']);
  });

  it('answers a real callback press ahead of a queued bulk backlog', async () => {
    h = await sandboxScheduler();
    const people = await dialogs(h.sandbox, 31);
    const [presser, ...bulkChats] = people;
    const menu = await h.scheduler.submit({
      op: 'sendMessage',
      args: {
        chat_id: presser!.chatId,
        text: 'Menu',
        attachments: [
          {
            type: 'inline_keyboard',
            payload: { buttons: [[{ type: 'callback', text: 'Go', payload: 'go' }]] },
          },
        ],
      },
    });
    const bulk: Promise<unknown>[] = [];
    for (let round = 0; round < 4; round++) {
      for (const { chatId } of bulkChats) {
        bulk.push(
          h.scheduler.submit({
            op: 'sendMessage',
            args: { chat_id: chatId, text: `b${round}` },
            priority: 'bulk',
          }),
        );
      }
    }
    let answered: Promise<unknown> | undefined;
    const stop = h.sandbox.onUpdate((update) => {
      const u = update as { update_type: string; callback?: { callback_id: string } };
      if (u.update_type !== 'message_callback' || !u.callback) return;
      answered = h!.scheduler.submit({
        op: 'answerCallback',
        args: { callback_id: u.callback.callback_id, notification: 'Done' },
        chatId: presser!.chatId,
      });
    });
    await h.sandbox.control.pressButton(presser!.userId, menu.message.body.mid, 'go');
    stop();
    await answered;
    await Promise.all(bulk);
    const log = h.sandbox.requestLog.list();
    const answerAt = log.findIndex((r) => r.op === 'answerCallback');
    const bulkAfterAnswer = log.slice(answerAt).filter((r) => r.op === 'sendMessage').length;
    expect(bulkAfterAnswer).toBeGreaterThan(60); // most of the 120 bulk sends were still waiting
    expect(windowPeaks(log).http429).toBe(0);
  });

  it('a 429 on one chat pauses only that chat; the failed send is retried first and order holds', async () => {
    // The scheduler believes in 4 per chat, the platform allows 2: the third send in a second gets a 429.
    h = await sandboxScheduler({ limits: { global: 30, perChat: 4 } });
    const [busy, other] = await dialogs(h.sandbox, 2);
    const since = Date.now();
    const jobs: Promise<unknown>[] = Array.from({ length: 6 }, (_, i) =>
      h!.scheduler.submit({ op: 'sendMessage', args: { chat_id: busy!.chatId, text: `b${i}` } }),
    );
    // Work for other scopes that keeps flowing for about two seconds.
    for (let i = 0; i < 60; i++)
      jobs.push(h.scheduler.submit({ op: 'getChat', args: { chat_id: other!.chatId } }));
    await Promise.all(jobs);

    const log = h.sandbox.requestLog.list(since);
    const first429 = log.find((r) => r.status === 429)!;
    expect(first429.chat).toBe(busy!.chatId);
    const busyAfter = log.filter((r) => r.chat === busy!.chatId && r.time > first429.time);
    expect(busyAfter[0]!.time - first429.time).toBeGreaterThanOrEqual(990); // Retry-After: 1 s
    const othersDuringPause = log.filter(
      (r) => r.chat !== busy!.chatId && r.time > first429.time && r.time < first429.time + 900,
    );
    expect(othersDuringPause.length).toBeGreaterThan(0);
    expect(h.scheduler.metrics().http429.global).toBe(0);
    expect(await textsIn(h.api, busy!.chatId)).toEqual(['b0', 'b1', 'b2', 'b3', 'b4', 'b5']);
  });

  it('a 429 on a call tied to no chat pauses everything until Retry-After has passed', async () => {
    // The scheduler believes in 40 per second overall; the platform refuses the 31st.
    h = await sandboxScheduler({ limits: { global: 40, perChat: 2 } });
    const people = await dialogs(h.sandbox, 3);
    const since = Date.now();
    const jobs: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) jobs.push(h.scheduler.submit({ op: 'getMyInfo', args: {} }));
    // The sends below are submitted once the platform has refused one of these, i.e. during the pause.
    await eventually('the platform to refuse a call', () =>
      h!.sandbox.requestLog.list(since).some((r) => r.status === 429),
    );
    for (const { chatId } of people)
      jobs.push(h.scheduler.submit({ op: 'sendMessage', args: { chat_id: chatId, text: 'x' } }));
    await Promise.all(jobs);

    const log = h.sandbox.requestLog.list(since);
    const refused = log.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    const lastRefused = Math.max(...refused.map((r) => r.time));
    const firstRefused = Math.min(...refused.map((r) => r.time));
    // Nothing at all was sent between the refusals and the end of the pause (calls already on the wire aside).
    const sentInPause = log.filter((r) => r.time > lastRefused && r.time < firstRefused + 990);
    expect(sentInPause).toEqual([]);
    expect(h.scheduler.metrics().http429.global).toBeGreaterThan(0);
    expect(h.scheduler.metrics().http429.chat).toBe(0);
  });
});
