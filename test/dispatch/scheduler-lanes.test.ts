// The scheduler on a fake clock, issue 28: no class of call starves another. Read-backs and "typing…"
// wait in their chat's lane; the calls tied to no chat keep their place in their round however often
// the long poll comes back; a newer "typing…" replaces a queued one for the same chat.
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/client/scheduler/scheduler.ts';
import { DeadLetterError, type Job } from '../../src/client/scheduler/types.ts';
import { ClaimedMessages, sendOnce } from '../../src/dispatch/sent-once.ts';
import { FakeApi, FakeClock, networkError } from './fakes.ts';

function setup() {
  const clock = new FakeClock();
  const api = new FakeApi(clock);
  const warnings: object[] = [];
  const scheduler = new Scheduler({
    api,
    limits: { global: 30, perChat: 2, windowMs: 1000, safetyMargin: 0 },
    now: clock.now,
    setTimer: clock.setTimer,
    logger: { warn: (fields) => warnings.push(fields) },
  });
  return { clock, api, scheduler, warnings };
}

/** When the call with exactly these args reached the API, if it did. */
function startOf(api: FakeApi, args: object): number | undefined {
  return api.calls.find((c) => c.args === args)?.at;
}

describe('Scheduler lanes (issue 28)', () => {
  it('serves every call within its bound under a steady long poll and 40 busy chats', async () => {
    const { clock, api, scheduler } = setup();
    // The poll answers after 150 ms and is submitted again at once, as long polling does.
    api.respond = (call) =>
      call.op === 'getUpdates'
        ? new Promise((resolve) => clock.setTimer(() => resolve({ updates: [] }), 150, true))
        : call.op === 'getMessages'
          ? { messages: [] }
          : { message: { body: { mid: 'm' } } };
    let running = true;
    const poll = () => {
      if (running) scheduler.submit({ op: 'getUpdates', args: { timeout: 30 } }).then(poll, poll);
    };
    poll();
    // 40 busy chats: each always has its next reply queued (the dispatcher claims one head per chat).
    const busy = (chat: number) => {
      if (running)
        scheduler.submit({ op: 'sendMessage', args: { chat_id: chat, text: 'r' } }).then(
          () => busy(chat),
          () => busy(chat),
        );
    };
    for (let chat = 1; chat <= 40; chat++) busy(chat);
    await clock.advance(2_000);

    const probes: { kind: string; args: object; at: number; done: Promise<unknown> }[] = [];
    const probe = (kind: string, job: Job) =>
      probes.push({ kind, args: job.args, at: clock.time, done: scheduler.submit(job) });
    for (let i = 0; i < 30; i++) {
      // Calls tied to no chat, one every 2 s: fewer than the one per round their lane is served.
      if (i % 4 === 0) probe('unscoped', { op: i % 8 === 0 ? 'getMyInfo' : 'getSubscriptions', args: {} });
      // A read-back of a busy chat, as sent-once submits it (the chat's lane holds its next reply).
      probe('read-back', {
        op: 'getMessages',
        args: { chat_id: 1 + ((i * 7) % 40), count: 20 },
        chatId: 1 + ((i * 7) % 40),
        priority: 'reply',
      });
      // "typing…" as a running task sends it (bulk, worth its 4 s), in a quiet and in a busy chat.
      if (i % 4 === 0) {
        for (const chat of [100 + i, 1 + ((i * 3) % 40)])
          probe('typing', {
            op: 'sendAction',
            args: { chat_id: chat, action: 'typing_on' },
            chatId: chat,
            priority: 'bulk',
            ttlMs: 4_000,
          });
      }
      await clock.advance(500);
    }
    await clock.advance(5_000);
    running = false;

    // The bound (scheduler.ts, docs/client.md): a ready lane gets its turn within K turns of its class,
    // and a class gets at least one of every S + 1 dispatches while one more urgent class competes
    // (here the poll, callback class; "typing…" sits in the reply class' lanes). K = 41 lanes in the
    // reply class (40 chats, the unscoped one), S = classShareEvery = 8: a lane's turn comes within
    // K × (S + 1) = 369 dispatches, 12.3 s at 30/s. A read-back or typing queued behind its chat's
    // next reply needs two turns of the chat. In practice a round here takes about 2 s.
    const turn = 41 * 9;
    const waits = new Map<string, { dispatches: number; ms: number }>();
    for (const p of probes) {
      const start = startOf(api, p.args);
      expect(start, `${p.kind} ${JSON.stringify(p.args)} never started`).toBeDefined();
      const dispatches = api.calls.filter((c) => c.at > p.at && c.at < start!).length;
      const seen = waits.get(p.kind) ?? { dispatches: 0, ms: 0 };
      waits.set(p.kind, {
        dispatches: Math.max(seen.dispatches, dispatches),
        ms: Math.max(seen.ms, start! - p.at),
      });
    }
    expect(waits.get('unscoped')!.dispatches).toBeLessThanOrEqual(turn);
    expect(waits.get('read-back')!.dispatches).toBeLessThanOrEqual(2 * turn);
    expect(waits.get('typing')!.dispatches).toBeLessThanOrEqual(2 * turn);
    // What the issue saw: more than 20 s for a call tied to no chat; typing dead-lettered past 10 s.
    for (const kind of ['unscoped', 'read-back', 'typing']) expect(waits.get(kind)!.ms).toBeLessThan(5_000);
    const metrics = scheduler.metrics();
    expect(metrics.deadLetters.total).toBe(0);
    expect(metrics.chatActions).toEqual({ sent: 16, coalesced: 0, expired: 0 });
    // Read-backs and chat actions went in their chat's lane: its order, not counted in its 2/s.
    const chat1 = api.calls.filter((c) => c.args.chat_id === 1 && c.op === 'sendMessage').map((c) => c.at);
    for (let i = 2; i < chat1.length; i++) expect(chat1[i]! - chat1[i - 2]!).toBeGreaterThanOrEqual(1000);
    scheduler.close();
  });

  it('runs a read-back in its chat lane after the send it checks, without waiting on itself', async () => {
    const { clock, api, scheduler } = setup();
    const order: string[] = [];
    api.respond = (call, attempt) => {
      order.push(call.op);
      if (call.op === 'sendMessage' && call.args.text === 'hello' && attempt === 1) throw networkError(true);
      if (call.op === 'getMessages')
        return {
          messages: [
            { sender: { is_bot: true }, timestamp: Date.now(), body: { text: 'hello', mid: 'mid.hello' } },
          ],
        };
      return { message: { body: { mid: `mid.${String(call.args.text)}` } } };
    };
    // The chat's lane is busy: replies queued before and after the one that is read back.
    const before = scheduler.submit({ op: 'sendMessage', args: { chat_id: 7, text: 'before' } });
    const checked = sendOnce(
      scheduler,
      { op: 'sendMessage', args: { chat_id: 7, text: 'hello' } },
      7,
      Date.now(),
      false,
      new ClaimedMessages(),
    );
    const after = scheduler.submit({ op: 'sendMessage', args: { chat_id: 7, text: 'after' } });
    // And a read-back submitted first thing (a send in flight when a previous process stopped).
    const first = sendOnce(
      scheduler,
      { op: 'sendMessage', args: { chat_id: 7, text: 'again' } },
      7,
      Date.now(),
      true,
    );
    await clock.runUntil(() => scheduler.depthOf(7) === 0 && order.length >= 6, 10_000);
    await expect(checked).resolves.toEqual({ message: expect.objectContaining({ body: expect.anything() }) });
    await Promise.all([before, after, first]);
    // The read-back went through chat 7's lane (depthOf counts it) and found the message: no resend.
    expect(api.calls.filter((c) => c.args.text === 'hello')).toHaveLength(1);
    expect(api.calls.filter((c) => c.op === 'getMessages').every((c) => c.args.chat_id === 7)).toBe(true);
    // In chat 7's order: the read-back submitted first thing waits behind the chat's queued replies.
    expect(order.slice(0, 4)).toEqual(['sendMessage', 'sendMessage', 'sendMessage', 'getMessages']);
    expect(clock.time).toBeLessThan(5_000);
  });

  it('keeps one "typing…" per chat queued: a newer one takes the older one\'s place, and the drop is counted', async () => {
    const { clock, api, scheduler } = setup();
    // Chat 5 is busy for a while: 6 replies take 3 s at its 2/s.
    const replies = Array.from({ length: 6 }, (_, i) =>
      scheduler.submit({ op: 'sendMessage', args: { chat_id: 5, text: `r${i}` } }),
    );
    const typing = (n: number) =>
      scheduler.submit({
        op: 'sendAction',
        args: { chat_id: 5, action: 'typing_on', n } as never,
        priority: 'bulk',
        ttlMs: 4_000,
      });
    const first = typing(1);
    await clock.advance(10);
    const second = typing(2);
    const third = typing(3);
    const other = scheduler.submit({ op: 'sendAction', args: { chat_id: 6, action: 'typing_on' } });
    expect(scheduler.depthOf(5)).toBeLessThanOrEqual(7); // 6 replies (one in flight) and one typing
    const dropped = await Promise.allSettled([first, second]);
    for (const d of dropped) {
      expect(d.status).toBe('rejected');
      expect((d as PromiseRejectedResult).reason).toBeInstanceOf(DeadLetterError);
      expect(((d as PromiseRejectedResult).reason as DeadLetterError).reason).toBe('superseded');
    }
    await clock.runUntil(() => scheduler.depthOf(5) === 0, 10_000);
    await Promise.all([...replies, third, other]);
    const actions = api.calls.filter((c) => c.op === 'sendAction' && c.args.chat_id === 5);
    expect(actions.map((c) => (c.args as { n?: number }).n)).toEqual([3]);
    const metrics = scheduler.metrics();
    expect(metrics.chatActions).toEqual({ sent: 2, coalesced: 2, expired: 0 });
    expect(metrics.deadLetters.total).toBe(0);
  });

  it('counts a "typing…" that outlived its time-to-live', async () => {
    const { clock, scheduler, warnings } = setup();
    // Behind 8 replies of its chat (4 s at 2/s) a "typing…" worth 1 s is given up, counted and logged.
    const replies = Array.from({ length: 8 }, (_, i) =>
      scheduler.submit({ op: 'sendMessage', args: { chat_id: 5, text: `r${i}` } }),
    );
    const typing = scheduler.submit({
      op: 'sendAction',
      args: { chat_id: 5, action: 'typing_on' },
      priority: 'bulk',
      ttlMs: 1_000,
    });
    const outcome = await Promise.allSettled([typing, clock.advance(6_000)]);
    expect(outcome[0].status).toBe('rejected');
    await Promise.all(replies);
    expect(scheduler.metrics().chatActions.expired).toBe(1);
    expect(warnings).toContainEqual(expect.objectContaining({ op: 'sendAction', reason: 'expired' }));
  });
});
