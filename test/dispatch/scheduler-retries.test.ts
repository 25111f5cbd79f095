// The scheduler on a fake clock: 429 pauses by scope, attachment.not.ready, network errors, dead letters.
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { DeadLetterError } from '../../src/client/scheduler/types.ts';
import { apiError, FakeApi, FakeClock, networkError } from './fakes.ts';

function setup(options: { ttlMs?: Record<string, number> } = {}) {
  const clock = new FakeClock();
  const api = new FakeApi(clock);
  const warnings: object[] = [];
  const scheduler = new Scheduler({
    api,
    limits: { global: 30, perChat: 2, windowMs: 1000, safetyMargin: 0 },
    now: clock.now,
    setTimer: clock.setTimer,
    logger: { warn: (fields) => warnings.push(fields) },
    pacing: false, // these tests are about retries; bursts keep their arithmetic simple
    ...options,
  });
  return { clock, api, scheduler, warnings };
}

const send = (chat: number, text: string) => ({ op: 'sendMessage' as const, args: { chat_id: chat, text } });

async function deadLetterOf(promise: Promise<unknown>): Promise<DeadLetterError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeadLetterError);
  return error as DeadLetterError;
}

describe('Scheduler retries', () => {
  it('pauses only the chat that got a 429, retries its call first, and keeps the chat in order', async () => {
    const { clock, api, scheduler } = setup();
    api.respond = (call, attempt) => {
      if (call.args.chat_id === 1 && call.args.text === 'b' && attempt === 1)
        throw apiError(429, 'too.many.requests', 3);
      return { message: { body: { mid: 'x' } } };
    };
    const jobs = ['a', 'b', 'c'].map((text) => scheduler.submit(send(1, text)));
    for (let chat = 2; chat <= 11; chat++) jobs.push(scheduler.submit(send(chat, 'other')));
    await clock.advance(1_500);
    for (let chat = 12; chat <= 21; chat++) jobs.push(scheduler.submit(send(chat, 'other')));
    await clock.advance(500);
    // Every other chat went ahead, also those that came during the pause, while chat 1 waited.
    expect(api.calls.filter((c) => c.args.text === 'other')).toHaveLength(20);
    expect(api.calls.filter((c) => c.args.chat_id === 1).map((c) => c.args.text)).toEqual(['a', 'b']);
    await clock.advance(1_500);
    await Promise.all(jobs);
    const chat1 = api.calls.filter((c) => c.args.chat_id === 1);
    expect(chat1.map((c) => c.args.text)).toEqual(['a', 'b', 'b', 'c']);
    expect(chat1[2]!.at - chat1[1]!.at).toBeGreaterThanOrEqual(3_000);
    expect(scheduler.metrics().http429).toEqual({ chat: 1, global: 0 });
  });

  it('treats a 429 on a chat that had no other call in the window as a global limit', async () => {
    const { clock, api, scheduler } = setup();
    api.respond = (call, attempt) => {
      if (call.args.chat_id === 1 && attempt === 1) throw apiError(429, 'too.many.requests', 2);
      return { success: true };
    };
    const first = scheduler.submit(send(1, 'a'));
    await clock.advance(10);
    const other = scheduler.submit(send(2, 'b'));
    await clock.advance(1_000);
    expect(api.calls).toHaveLength(1);
    await clock.advance(1_100);
    await Promise.all([first, other]);
    expect(scheduler.metrics().http429).toEqual({ chat: 0, global: 1 });
  });

  it('pauses everything after a 429 on a call that counts against no chat', async () => {
    const { clock, api, scheduler } = setup();
    api.respond = (call, attempt) => {
      if (call.op === 'getMyInfo' && attempt === 1) throw apiError(429, 'too.many.requests', 2);
      return { success: true };
    };
    const first = scheduler.submit({ op: 'getMyInfo', args: {} });
    await clock.advance(10);
    const rest = Array.from({ length: 10 }, (_, i) => scheduler.submit(send(100 + i, 'later')));
    await clock.advance(1_900);
    expect(api.calls).toHaveLength(1);
    await clock.advance(200);
    await Promise.all([first, ...rest]);
    expect(api.calls[1]!.op).toBe('getMyInfo'); // the failed call went back to the head
    expect(scheduler.metrics().http429.global).toBe(1);
  });

  it('pauses everything when several chats are hit at once', async () => {
    const { clock, api, scheduler } = setup();
    api.respond = (call, attempt) => {
      if (attempt === 1 && (call.args.chat_id as number) <= 3) throw apiError(429, 'too.many.requests', 5);
      return { success: true };
    };
    const jobs = Array.from({ length: 20 }, (_, i) => scheduler.submit(send(i + 1, 'x')));
    await clock.advance(10);
    const dispatchedBefore = api.calls.length;
    await clock.advance(3_000);
    expect(api.calls.length).toBe(dispatchedBefore); // global pause: nothing new
    await clock.advance(3_000);
    await Promise.all(jobs);
    expect(scheduler.metrics().http429.global).toBeGreaterThanOrEqual(1);
  });

  it('retries attachment.not.ready in place, without holding other chats', async () => {
    const { clock, api, scheduler } = setup();
    const video = {
      chat_id: 7,
      text: 'clip',
      attachments: [{ type: 'video' as const, payload: { token: 't' } }],
    };
    api.respond = (call, attempt) => {
      if (call.args === video && attempt <= 3) throw apiError(400, 'attachment.not.ready');
      return { message: { body: { mid: String(call.args.text) } } };
    };
    const clip = scheduler.submit({ op: 'sendMessage', args: video });
    const after = scheduler.submit(send(7, 'after the clip'));
    const others = Array.from({ length: 10 }, (_, i) => scheduler.submit(send(100 + i, 'other')));
    await clock.advance(500);
    expect(api.calls.filter((c) => c.args.text === 'other')).toHaveLength(10);
    await clock.runUntil(() => api.calls.some((c) => c.args.text === 'after the clip'));
    await expect(clip).resolves.toEqual({ message: { body: { mid: 'clip' } } });
    await after;
    await Promise.all(others);
    const chat7 = api.calls.filter((c) => c.args.chat_id === 7).map((c) => c.args.text);
    expect(chat7).toEqual(['clip', 'clip', 'clip', 'clip', 'after the clip']);
    expect(scheduler.metrics().retries.notReady).toBe(3);
  });

  it('gives up on attachment.not.ready after the budget of the media kind (video waits longer than an image)', async () => {
    const { clock, api, scheduler } = setup();
    api.respond = () => {
      throw apiError(400, 'attachment.not.ready');
    };
    const image = scheduler.submit({
      op: 'sendMessage',
      args: { chat_id: 1, attachments: [{ type: 'image', payload: { token: 'i' } }] },
    });
    const video = scheduler.submit({
      op: 'sendMessage',
      args: { chat_id: 2, attachments: [{ type: 'video', payload: { token: 'v' } }] },
    });
    const imageError = deadLetterOf(image);
    const videoError = deadLetterOf(video);
    await clock.runUntil(() => scheduler.metrics().deadLetters.total === 2, 600_000, 1_000);
    expect((await imageError).reason).toBe('attachment-not-ready');
    expect((await videoError).reason).toBe('attachment-not-ready');
    const last = (chat: number) => api.calls.filter((c) => c.args.chat_id === chat).at(-1)!.at;
    expect(last(1)).toBeGreaterThanOrEqual(15_000);
    expect(last(2)).toBeGreaterThanOrEqual(180_000);
  });

  it('dead-letters a job whose Retry-After outlasts its time-to-live, with the reason and the 429', async () => {
    const { clock, api, scheduler } = setup();
    api.respond = () => {
      throw apiError(429, 'too.many.requests', 120);
    };
    const job = scheduler.submit({ ...send(1, 'late'), ttlMs: 30_000 });
    const error = deadLetterOf(job);
    await clock.advance(100);
    const dead = await error;
    expect(dead.reason).toBe('rate-limited');
    expect((dead.lastError as { status: number }).status).toBe(429);
    expect(scheduler.metrics().deadLetters.byReason).toEqual({ 'rate-limited': 1 });
  });

  it('dead-letters a job that waited past its time-to-live in the queue', async () => {
    const { clock, scheduler } = setup();
    const jobs = Array.from({ length: 10 }, (_, i) => scheduler.submit({ ...send(1, `${i}`), ttlMs: 2_000 }));
    const outcomes = Promise.allSettled(jobs);
    await clock.advance(10_000);
    const results = await outcomes;
    // 2 per second at 0, 1000 and 2000 (the last two are exactly at their deadline); the rest expire.
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(6);
    const reasons = results.flatMap((r) =>
      r.status === 'rejected' ? [(r.reason as DeadLetterError).reason] : [],
    );
    expect(new Set(reasons)).toEqual(new Set(['expired']));
  });

  it('retries network errors before sending; ambiguous ones only when the job allows a repeat', async () => {
    const { clock, api, scheduler } = setup();
    api.respond = (call, attempt) => {
      if (call.args.text === 'refused' && attempt <= 2) throw networkError(false);
      if (call.args.text?.toString().startsWith('ambiguous') && attempt === 1) throw networkError(true);
      if (call.op === 'editMessage' && attempt === 1) throw networkError(true);
      return { success: true };
    };
    const refused = scheduler.submit(send(1, 'refused'));
    const once = scheduler.submit({ ...send(2, 'ambiguous once'), sendPolicy: 'at-most-once' });
    const twice = scheduler.submit({ ...send(3, 'ambiguous twice'), sendPolicy: 'at-least-once' });
    const edit = scheduler.submit({
      op: 'editMessage',
      args: { message_id: 'm', text: 'e' },
      chatId: 4,
      sendPolicy: 'at-most-once',
    });
    const onceError = deadLetterOf(once);
    await clock.advance(20_000);
    await expect(refused).resolves.toEqual({ success: true });
    expect((await onceError).reason).toBe('ambiguous');
    await expect(twice).resolves.toEqual({ success: true });
    await expect(edit).resolves.toEqual({ success: true }); // idempotent: always safe to repeat
  });

  it('rides out a 30-second outage: nothing is lost, the breaker holds the queue, the order is kept', async () => {
    const { clock, api, scheduler, warnings } = setup();
    const outageEnds = clock.now() + 30_000;
    api.respond = (_call, attempt) => {
      if (clock.now() < outageEnds)
        throw attempt % 2 ? networkError(false) : apiError(503, 'service.unavailable');
      return { message: { body: { mid: 'x' } } };
    };
    const jobs = [];
    for (let chat = 1; chat <= 30; chat++)
      for (const text of ['a', 'b']) jobs.push(scheduler.submit(send(chat, text)));
    const typing = scheduler.submit({ op: 'sendAction', args: { chat_id: 99, action: 'typing_on' } });
    const typingError = deadLetterOf(typing);
    await clock.advance(40_000);
    await Promise.all(jobs); // every reply arrives once the platform is back
    expect((await typingError).reason).toBe('expired'); // a typing action is not worth sending 30 s late
    const failedDuringOutage = api.calls.filter((c) => c.at < outageEnds).length;
    expect(failedDuringOutage).toBeLessThan(60); // probes, not 61 calls retrying on their own
    for (let chat = 1; chat <= 30; chat++) {
      const delivered = api.calls
        .filter((c) => c.args.chat_id === chat && c.at >= outageEnds)
        .map((c) => c.args.text);
      expect(delivered).toEqual(['a', 'b']);
    }
    expect(warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ error: expect.any(String) })]),
    );
  });

  it('sends nothing in the first window after start when told to (a restart may follow a busy second)', async () => {
    const clock = new FakeClock();
    const api = new FakeApi(clock);
    api.respond = () => ({ success: true });
    const scheduler = new Scheduler({ api, now: clock.now, setTimer: clock.setTimer, startPausedMs: 1_000 });
    const started = clock.now();
    const jobs = Array.from({ length: 5 }, (_, i) => scheduler.submit(send(i + 1, 'x')));
    await clock.advance(999);
    expect(api.calls).toHaveLength(0);
    await clock.advance(1_000);
    await Promise.all(jobs);
    expect(api.calls.every((c) => c.at >= started + 1_000)).toBe(true);
  });

  it('still gives up on a failing call when its time-to-live ends', async () => {
    const { clock, api, scheduler } = setup();
    api.respond = () => {
      throw networkError(false);
    };
    const job = deadLetterOf(scheduler.submit({ ...send(1, 'x'), ttlMs: 20_000 }));
    await clock.advance(60_000);
    expect((await job).reason).toBe('expired');
  });

  it('reports a refused call as a dead letter carrying the platform error, and aborts queued jobs', async () => {
    const { clock, api, scheduler, warnings } = setup();
    api.respond = () => {
      throw apiError(403, 'chat.denied');
    };
    const refused = deadLetterOf(scheduler.submit(send(1, 'x')));
    const controller = new AbortController();
    const queued = scheduler.submit({ ...send(1, 'y'), signal: controller.signal });
    controller.abort();
    const aborted = await deadLetterOf(queued);
    await clock.advance(1_000);
    const dead = await refused;
    expect(dead.reason).toBe('rejected');
    expect((dead.lastError as { code: string }).code).toBe('chat.denied');
    expect(dead.message).toContain('sendMessage for chat 1');
    expect(aborted.reason).toBe('aborted');
    expect(warnings).toContainEqual({ op: 'sendMessage', chatId: 1, reason: 'rejected' });
    // The caller aborted it (as a long poll is at a clean stop): no warning.
    expect(warnings).not.toContainEqual(expect.objectContaining({ reason: 'aborted' }));
  });

  it('drains, then closes: waiting jobs are dead-lettered as closed and new ones refused', async () => {
    const { clock, scheduler } = setup();
    const first = Array.from({ length: 4 }, (_, i) => scheduler.submit(send(1, `${i}`)));
    const drained = scheduler.drain();
    await clock.advance(2_000);
    await drained;
    await Promise.all(first);
    // The chat's window has room for two more now; the third has to wait.
    const fitting = [scheduler.submit(send(1, 'fits')), scheduler.submit(send(1, 'fits too'))];
    const waitingError = deadLetterOf(scheduler.submit(send(1, 'waits')));
    await clock.advance(10);
    scheduler.close();
    await Promise.all(fitting);
    expect((await waitingError).reason).toBe('closed');
    expect((await deadLetterOf(scheduler.submit(send(2, 'after')))).reason).toBe('closed');
  });

  it('runs onStart before each attempt goes out, and not for a call closed while it waited', async () => {
    const { clock, api, scheduler } = setup();
    const order: string[] = [];
    api.respond = (call, attempt) => {
      order.push(`request ${call.args.text} #${attempt}`);
      if (attempt === 1 && call.args.text === 'a') throw apiError(500, 'internal');
      return { message: { body: { mid: String(call.args.text) } } };
    };
    const started = (text: string) => async () => {
      order.push(`onStart ${text}`);
    };
    const a = scheduler.submit({ ...send(1, 'a'), onStart: started('a') });
    await clock.advance(5_000);
    await a;
    expect(order).toEqual(['onStart a', 'request a #1', 'onStart a', 'request a #2']);
    // A call still waiting when the scheduler closes never went out: no onStart.
    const b = scheduler.submit({ ...send(1, 'b'), onStart: started('b') });
    const c = scheduler.submit({ ...send(1, 'c'), onStart: started('c') });
    const d = scheduler.submit({ ...send(1, 'd'), onStart: started('d') });
    scheduler.close();
    await Promise.allSettled([b, c, d]);
    expect(order.filter((line) => line.includes(' d'))).toEqual([]);
  });
});
