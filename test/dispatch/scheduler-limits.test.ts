// The scheduler on a fake clock: windows, order, fairness, priorities, the single timer, memory.
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { FakeApi, FakeClock, maxInWindow } from './fakes.ts';

function setup(limits = { global: 30, perChat: 2, windowMs: 1000, safetyMargin: 0 }) {
  const clock = new FakeClock();
  const api = new FakeApi(clock);
  const scheduler = new Scheduler({ api, limits, now: clock.now, setTimer: clock.setTimer });
  return { clock, api, scheduler };
}

const chatOf = (args: Record<string, unknown>) => args.chat_id as number;

describe('Scheduler windows', () => {
  it('never starts more than 30 calls in any second, nor more than 2 per chat, and runs at the limit', async () => {
    const { clock, api, scheduler } = setup();
    const done: Promise<unknown>[] = [];
    for (let i = 0; i < 600; i++) {
      done.push(
        scheduler.submit({
          op: 'sendMessage',
          args: { chat_id: 1 + (i % 60), text: `m${i}` },
          priority: 'bulk',
        }),
      );
    }
    for (let i = 0; i < 30; i++) done.push(scheduler.submit({ op: 'getChat', args: { chat_id: 5 } }));
    await clock.runUntil(() => api.calls.length === 630);
    await Promise.all(done);

    expect(
      maxInWindow(
        api.calls.map((c) => c.at),
        1000,
      ),
    ).toBe(30);
    const byChat = new Map<number, number[]>();
    for (const c of api.calls.filter((c) => c.op === 'sendMessage')) {
      byChat.set(chatOf(c.args), [...(byChat.get(chatOf(c.args)) ?? []), c.at]);
    }
    for (const times of byChat.values()) expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(2);
    // 630 calls at 30 per second take 20 full windows (the first starts at 0).
    expect(api.calls.at(-1)!.at).toBeLessThanOrEqual(21_000);
    expect(clock.maxLiveTimers).toBe(1);
  });

  it('keeps each chat in submission order (send, edit, delete)', async () => {
    const { clock, api, scheduler } = setup();
    const jobs: Promise<unknown>[] = [];
    for (let chat = 1; chat <= 20; chat++) {
      jobs.push(scheduler.submit({ op: 'sendMessage', args: { chat_id: chat, text: 'a' } }));
      jobs.push(
        scheduler.submit({ op: 'editMessage', args: { message_id: `m${chat}`, text: 'b' }, chatId: chat }),
      );
      jobs.push(scheduler.submit({ op: 'deleteMessage', args: { message_id: `m${chat}` }, chatId: chat }));
    }
    await clock.runUntil(() => api.calls.length === 60);
    await Promise.all(jobs);
    for (let chat = 1; chat <= 20; chat++) {
      const ops = api.calls
        .filter((c) => c.args.chat_id === chat || c.args.message_id === `m${chat}`)
        .map((c) => c.op);
      expect(ops).toEqual(['sendMessage', 'editMessage', 'deleteMessage']);
    }
  });

  it('serves chats fairly: a chat with 500 queued messages does not starve 200 others', async () => {
    const { clock, api, scheduler } = setup();
    for (let i = 0; i < 500; i++)
      scheduler
        .submit({ op: 'sendMessage', args: { chat_id: 999, text: `${i}` }, priority: 'bulk' })
        .catch(() => {});
    for (let chat = 1; chat <= 200; chat++)
      scheduler
        .submit({ op: 'sendMessage', args: { chat_id: chat, text: 'x' }, priority: 'bulk' })
        .catch(() => {});
    await clock.runUntil(() => api.calls.filter((c) => c.args.chat_id !== 999).length === 200);
    // 200 other chats at 30/s need about 7 s; the hot chat is held to its own 2/s meanwhile.
    expect(clock.time).toBeLessThan(8_000);
    expect(
      maxInWindow(
        api.calls.filter((c) => c.args.chat_id === 999).map((c) => c.at),
        1000,
      ),
    ).toBe(2);
    scheduler.close();
  });

  it('drains a chat whose backlog is the bottleneck alongside the others, not alone at the end', async () => {
    const { clock, api, scheduler } = setup();
    const jobs: Promise<unknown>[] = [];
    for (let i = 0; i < 100; i++)
      jobs.push(
        scheduler.submit({ op: 'sendMessage', args: { chat_id: 999, text: `${i}` }, priority: 'bulk' }),
      );
    for (let i = 0; i < 1_400; i++) {
      jobs.push(
        scheduler.submit({
          op: 'sendMessage',
          args: { chat_id: 1 + (i % 140), text: 'x' },
          priority: 'bulk',
        }),
      );
    }
    await clock.runUntil(() => api.calls.length === 1_500);
    await Promise.all(jobs);
    // 1,500 calls at 30/s need 50 s, the hot chat's 100 at 2/s need 50 s too: both fit in about 52 s
    // (plain round robin would leave the hot chat draining alone for another ~45 s).
    expect(clock.time).toBeLessThan(55_000);
    expect(
      maxInWindow(
        api.calls.filter((c) => c.args.chat_id === 999).map((c) => c.at),
        1000,
      ),
    ).toBe(2);
    // Meanwhile a newcomer still gets through within a round.
  });

  it('lets callback answers overtake queued bulk sends, and bulk still progresses under steady replies', async () => {
    const { clock, api, scheduler } = setup();
    for (let i = 0; i < 300; i++)
      scheduler
        .submit({ op: 'sendMessage', args: { chat_id: i, text: 'bulk' }, priority: 'bulk' })
        .catch(() => {});
    await clock.advance(2_000);
    const answered = scheduler.submit({
      op: 'answerCallback',
      args: { callback_id: 'cb1', notification: 'ok' },
      chatId: 5_000,
    });
    const before = api.calls.length;
    await clock.advance(1_000); // the window is full until the next second
    await answered;
    const index = api.calls.findIndex((c) => c.op === 'answerCallback');
    expect(index).toBeGreaterThanOrEqual(before);
    expect(index).toBeLessThanOrEqual(before + 1); // the very next free slot
    // Replies keep the window full; bulk still gets about one turn in nine.
    const bulkBefore = api.calls.filter((c) => c.args.text === 'bulk').length;
    for (let i = 0; i < 400; i++)
      scheduler.submit({ op: 'sendMessage', args: { chat_id: 10_000 + i, text: 'reply' } }).catch(() => {});
    await clock.advance(10_000);
    const bulkAfter = api.calls.filter((c) => c.args.text === 'bulk').length;
    expect(bulkAfter - bulkBefore).toBeGreaterThanOrEqual(25);
    scheduler.close();
  });

  it('does not hold the long poll behind queued sends', async () => {
    const { clock, api, scheduler } = setup();
    for (let i = 0; i < 300; i++)
      scheduler
        .submit({ op: 'sendMessage', args: { chat_id: i, text: 'bulk' }, priority: 'bulk' })
        .catch(() => {});
    for (let i = 0; i < 100; i++) scheduler.submit({ op: 'getChat', args: { chat_id: i } }).catch(() => {});
    await clock.advance(1_500);
    const poll = scheduler.submit({ op: 'getUpdates', args: { timeout: 30 } });
    const before = api.calls.length;
    await clock.advance(1_000);
    await poll;
    expect(api.calls.findIndex((c) => c.op === 'getUpdates') - before).toBeLessThanOrEqual(1);
    scheduler.close();
  });

  it('forgets idle chats once their window has passed, with one timer', async () => {
    const { clock, api, scheduler } = setup({ global: 1000, perChat: 2, windowMs: 1000, safetyMargin: 0 });
    const jobs: Promise<unknown>[] = [];
    for (let chat = 1; chat <= 2_000; chat++)
      jobs.push(scheduler.submit({ op: 'sendMessage', args: { chat_id: chat, text: 'x' } }));
    await clock.runUntil(() => api.calls.length === 2_000);
    await Promise.all(jobs);
    expect(scheduler.metrics().chatsTracked).toBeGreaterThan(0);
    await clock.advance(3_000);
    expect(scheduler.metrics().chatsTracked).toBe(0);
    expect(clock.maxLiveTimers).toBe(1);
  });
});
