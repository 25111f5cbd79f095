// The one priority order of every call that shares the bot's budget (issue 35): the scheduler serves it,
// read-backs have their class, and a person's reply never waits behind a campaign send's pacing.
import { describe, expect, it } from 'vitest';
import { defaultPriority } from '../../src/client/scheduler/priorities.ts';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { PRIORITIES, type Priority } from '../../src/client/scheduler/types.ts';
import { chatPlace, commentsPlace } from '../../src/dispatch/sent-once.ts';
import { FakeApi, FakeClock } from './fakes.ts';

const limits = { global: 30, perChat: 2, windowMs: 1000, safetyMargin: 0 };

describe('the one priority order', () => {
  it('is intake, reply, edit, callback, typing, read-back, bulk; each operation has its class', () => {
    expect(PRIORITIES).toEqual(['intake', 'reply', 'edit', 'callback', 'typing', 'readback', 'bulk']);
    const classes: Record<string, Priority> = {
      getUpdates: 'intake',
      sendMessage: 'reply',
      editMessage: 'edit',
      answerCallback: 'callback',
      sendAction: 'typing',
      getMessages: 'readback',
      getComments: 'readback',
    };
    for (const [op, priority] of Object.entries(classes))
      expect(defaultPriority(op as never), op).toBe(priority);
    expect(chatPlace(7).job.priority).toBe('readback');
    expect(commentsPlace('mid.1').job.priority).toBe('readback');
  });

  it('serves the classes in that order when the window frees', async () => {
    const clock = new FakeClock();
    const api = new FakeApi(clock);
    const scheduler = new Scheduler({ api, limits, now: clock.now, setTimer: clock.setTimer, pacing: false });
    for (let i = 0; i < 30; i++) void scheduler.submit({ op: 'getChat', args: { chat_id: 1000 + i } });
    await clock.advance(0);
    expect(api.calls).toHaveLength(30); // the window is full for a second
    const jobs = [
      scheduler.submit({ op: 'sendMessage', args: { chat_id: 1, text: 'campaign' }, priority: 'bulk' }),
      scheduler.submit({ op: 'getMessages', args: { chat_id: 2, count: 10 } }),
      scheduler.submit({ op: 'sendAction', args: { chat_id: 3, action: 'typing_on' } }),
      scheduler.submit({ op: 'answerCallback', args: { callback_id: 'c', notification: 'ok' }, chatId: 4 }),
      scheduler.submit({ op: 'editMessage', args: { message_id: 'm', text: 'edited' }, chatId: 5 }),
      scheduler.submit({ op: 'sendMessage', args: { chat_id: 6, text: 'reply' } }),
    ];
    await clock.advance(1000);
    await Promise.all(jobs);
    expect(api.calls.slice(30).map((c) => c.op)).toEqual([
      'sendMessage',
      'editMessage',
      'answerCallback',
      'sendAction',
      'getMessages',
      'sendMessage',
    ]);
    expect(api.calls.at(-1)!.args.text).toBe('campaign');
    scheduler.close();
  });

  it("starts a person's reply at once while a campaign sends at the paced rate (no wait behind its pacing)", async () => {
    const clock = new FakeClock();
    const api = new FakeApi(clock);
    const scheduler = new Scheduler({ api, limits, now: clock.now, setTimer: clock.setTimer });
    for (let i = 0; i < 200; i++)
      scheduler
        .submit({ op: 'sendMessage', args: { chat_id: i, text: 'campaign' }, priority: 'bulk' })
        .catch(() => {});
    // Bulk starts one window/limit apart; stop just after one started.
    await clock.advance(500);
    const lastBulk = api.calls.at(-1)!.at;
    await clock.advance(lastBulk + 1 - clock.time);
    const submittedAt = clock.time;
    const reply = scheduler.submit({ op: 'sendMessage', args: { chat_id: 5000, text: 'reply' } });
    await clock.advance(0);
    expect(api.calls.find((c) => c.args.text === 'reply')?.at).toBe(submittedAt);
    await reply;
    scheduler.close();
  });
});
